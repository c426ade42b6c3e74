import type { SentMessageType, DeliveryRefusalReason, MessageReceived, SendIdempotency, SentMediaFile } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveMessage, initialMessageState, type MessageEvent, type MessageState } from './message.state';
import { checkSend, type SendFacts } from './send-rules';

export type MessageCommand =
  | Command<
      'SendMessage',
      {
        messageId: string;
        type: SentMessageType;
        text: string | null;
        media: SentMediaFile[];
        clientReference: string | null;
        idempotency: SendIdempotency;
        facts: SendFacts;
      }
    >
  | Command<'RecordReceipt', { status: 'delivered' | 'read' }>
  | Command<'RecordDeliveryRefusal', { reason: DeliveryRefusalReason }>
  /** Sweeper: `handedOverAt` is when the message went to the chat product (ISO). */
  | Command<'ExpireMessage', { handedOverAt: string }>
  | Command<'RecordInboundMessage', MessageReceived['data']>;

/** D4: a message the chat product has not delivered within 30 days fails as `expired`. */
export const MESSAGE_DELIVERY_DEADLINE_MS = 30 * 24 * 3600 * 1000;

export function decideMessage(command: MessageCommand, state: MessageState): MessageEvent[] {
  switch (command.type) {
    case 'SendMessage': {
      if (state.kind !== 'absent') throw new DomainError('invalid_transition', 'The message exists already.');
      const d = command.data;
      const { businessInitiated, rendered } = checkSend(d.type, d.facts, command.metadata.now);
      const recipient = d.facts.recipient!;
      const status = { messageId: d.messageId, appUserId: recipient.appUserId, clientReference: d.clientReference };
      // A template send carries the rendered text and the version it came from (architecture section 13).
      const content = rendered ? { text: rendered.text, template: rendered.template } : { text: d.text };
      // D3: accepted and handed over to the chat product at once, one event carrying both, and the
      // key it was accepted under (a repeat within 24 hours is answered from the message).
      return [
        {
          type: 'MessageSent',
          data: { ...status, userId: recipient.userId, type: d.type, ...content, media: d.media, businessInitiated, idempotency: d.idempotency },
        },
      ];
    }
    case 'RecordInboundMessage':
      if (state.kind !== 'absent') return [];
      return [{ type: 'MessageReceived', data: command.data }];
    case 'RecordReceipt': {
      if (state.kind !== 'outbound') throw new DomainError('not_found', 'No such outbound message.');
      const status = { messageId: state.messageId, appUserId: state.appUserId, clientReference: state.clientReference };
      // Receipts may arrive out of order: read wins over delivered, nothing moves a failed message.
      if (command.data.status === 'delivered') return state.status === 'sent' ? [{ type: 'MessageDelivered', data: status }] : [];
      return state.status === 'sent' || state.status === 'delivered' ? [{ type: 'MessageRead', data: status }] : [];
    }
    case 'RecordDeliveryRefusal': {
      if (state.kind !== 'outbound') throw new DomainError('not_found', 'No such outbound message.');
      if (state.status !== 'sent') return [];
      return [
        {
          type: 'MessageFailed',
          data: { messageId: state.messageId, appUserId: state.appUserId, clientReference: state.clientReference, reason: command.data.reason },
        },
      ];
    }
    case 'ExpireMessage': {
      if (state.kind !== 'outbound') throw new DomainError('not_found', 'No such outbound message.');
      // Delivered, read or already failed: a late sweep changes nothing.
      if (state.status !== 'sent') return [];
      if (command.metadata.now.getTime() - Date.parse(command.data.handedOverAt) < MESSAGE_DELIVERY_DEADLINE_MS) {
        throw new DomainError('invalid_transition', 'The message is within its delivery deadline.');
      }
      return [
        { type: 'MessageFailed', data: { messageId: state.messageId, appUserId: state.appUserId, clientReference: state.clientReference, reason: 'expired' } },
      ];
    }
    default:
      return assertNever(command);
  }
}

export const messageDecider: Decider<MessageState, MessageCommand, MessageEvent> = {
  initialState: initialMessageState,
  decide: decideMessage,
  evolve: evolveMessage,
};
