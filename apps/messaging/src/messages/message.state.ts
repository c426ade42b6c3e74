import { carriedAcceptance, type AcceptanceData, type DomainEvent, type MessageSent, type MessagingEvent } from '#platform/contracts';

/** Events of one message (stream `message-<messageId>`), as defined in libs/contracts (messaging.events). */
export type MessageEvent = MessagingEvent;

export type OutboundStatus = 'sent' | 'delivered' | 'read' | 'failed';

export type MessageState =
  | { kind: 'absent' }
  | { kind: 'outbound'; messageId: string; appUserId: string; clientReference: string | null; status: OutboundStatus }
  | { kind: 'inbound'; messageId: string };

export const initialMessageState = (): MessageState => ({ kind: 'absent' });

export function evolveMessage(state: MessageState, event: MessageEvent): MessageState {
  switch (event.type) {
    // D3: a send is accepted and handed over in one decision, so both open the message as sent:
    // MessageAccepted in streams written before one event per send, MessageSent carrying the acceptance since.
    case 'MessageAccepted':
      return outbound(event.data);
    case 'MessageReceived':
      return { kind: 'inbound', messageId: event.data.messageId };
    case 'MessageSent': {
      const acceptance = carriedAcceptance(event.data);
      return state.kind === 'absent' && acceptance ? outbound(acceptance) : state;
    }
    case 'MessageDelivered':
      return state.kind === 'outbound' ? { ...state, status: 'delivered' } : state;
    case 'MessageRead':
      return state.kind === 'outbound' ? { ...state, status: 'read' } : state;
    case 'MessageFailed':
      return state.kind === 'outbound' ? { ...state, status: 'failed' } : state;
  }
}

function outbound(data: { messageId: string; appUserId: string; clientReference: string | null }): MessageState {
  return { kind: 'outbound', messageId: data.messageId, appUserId: data.appUserId, clientReference: data.clientReference, status: 'sent' };
}

/**
 * What opens an outbound message (D3): a MessageSent that is its stream's first event and carries the
 * acceptance (a send handed over at once), or a MessageAccepted (streams written before one event
 * per send, or a send not handed over at once). The projection (message.projection.ts) and its rebuild (message.rebuild.ts) open rows by it.
 */
export function opensOutbound(event: Pick<DomainEvent, 'type' | 'data' | 'streamVersion'>): AcceptanceData | null {
  if (event.type === 'MessageAccepted') return event.data as AcceptanceData;
  if (event.type !== 'MessageSent' || event.streamVersion !== 1) return null;
  const acceptance = carriedAcceptance(event.data as MessageSent['data']);
  // The Message resource lists the files without their objects in the bucket.
  return acceptance && { ...acceptance, media: acceptance.media.map(({ objectKey: _key, ...file }) => file) };
}
