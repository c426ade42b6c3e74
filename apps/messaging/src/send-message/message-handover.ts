import { carriedAcceptance, derivedUuidv7, type DomainEvent, type MessageHandedOver, type MessageSent } from '#platform/contracts';

/**
 * D3: the handover to the chat product (`chat.outbound`) a MessageSent stands for, derived from that
 * event alone (pure), published by the relay with the MessageSent it derives from. Its id derives from
 * the MessageSent's, so a publication repeated mints no new handover.
 */
export function handoverOf(sent: DomainEvent): DomainEvent {
  const d = carriedAcceptance((sent as DomainEvent<'MessageSent', MessageSent['data']>).data);
  if (sent.type !== 'MessageSent' || !d) throw new Error(`${sent.type} ${sent.eventId} does not carry a send to hand over`);
  const handedOver: DomainEvent<'MessageHandedOver', MessageHandedOver['data']> = {
    ...sent,
    eventId: derivedUuidv7(new Date(sent.occurredAt).getTime(), `${sent.eventId}:handover`),
    type: 'MessageHandedOver',
    causationId: sent.eventId,
    data: {
      messageId: d.messageId,
      appId: sent.appId as string,
      userId: d.userId,
      appUserId: d.appUserId,
      // The chat product shows a template message as the text it was rendered to.
      type: d.type === 'template' ? 'text' : d.type,
      text: d.text,
      media: d.media.map((file) => ({
        mediaId: file.id,
        objectKey: file.objectKey,
        fileName: file.fileName,
        mimeType: file.mimeType ?? 'application/octet-stream',
        size: file.size,
      })),
    },
  };
  return handedOver;
}
