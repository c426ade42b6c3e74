import type { MessagingEvent } from '#platform/contracts';

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
    case 'MessageAccepted':
      return {
        kind: 'outbound',
        messageId: event.data.messageId,
        appUserId: event.data.appUserId,
        clientReference: event.data.clientReference,
        status: 'sent',
      };
    case 'MessageReceived':
      return { kind: 'inbound', messageId: event.data.messageId };
    case 'MessageSent':
      return state;
    case 'MessageDelivered':
      return state.kind === 'outbound' ? { ...state, status: 'delivered' } : state;
    case 'MessageRead':
      return state.kind === 'outbound' ? { ...state, status: 'read' } : state;
    case 'MessageFailed':
      return state.kind === 'outbound' ? { ...state, status: 'failed' } : state;
  }
}
