import { derivedUuidv7, type ChatMessageType, type DomainEvent, type MessageHandedOver, type OutboundMediaFile } from '#platform/contracts';

/** D3: the handoff to the chat product goes out through the outbox, in the same transaction. */
export function handover(events: DomainEvent[], appId: string, media: OutboundMediaFile[]): DomainEvent {
  const accepted = events.find((e) => e.type === 'MessageAccepted')!;
  const sent = events.find((e) => e.type === 'MessageSent')!;
  const d = accepted.data as { messageId: string; appUserId: string; userId: string; type: ChatMessageType; text: string | null };
  const handedOver: DomainEvent<'MessageHandedOver', MessageHandedOver['data']> = {
    ...sent,
    eventId: derivedUuidv7(new Date(sent.occurredAt).getTime(), `${sent.eventId}:handover`),
    type: 'MessageHandedOver',
    causationId: sent.eventId,
    data: { messageId: d.messageId, appId, userId: d.userId, appUserId: d.appUserId, type: d.type, text: d.text, media },
  };
  return handedOver;
}

/** Provisional: the handoff of a MessageSent that carries what acceptance carries. */
export function handoverOf(sent: DomainEvent): DomainEvent {
  const d = sent.data as { messageId: string; appUserId: string; userId: string; type: ChatMessageType; text: string | null; handedOver?: OutboundMediaFile[] };
  return {
    ...sent,
    eventId: derivedUuidv7(new Date(sent.occurredAt).getTime(), `${sent.eventId}:handover`),
    type: 'MessageHandedOver',
    causationId: sent.eventId,
    data: { messageId: d.messageId, appId: sent.appId, userId: d.userId, appUserId: d.appUserId, type: d.type, text: d.text, media: d.handedOver ?? [] },
  };
}
