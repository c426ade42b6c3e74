import type { EntityManager } from '@mikro-orm/postgresql';
import { inboundMediaId, TOPICS, type DomainEvent } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { decideInTransaction } from '#platform/event-store';
import type { ConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { audienceHandlers, projectUserMessage } from '../audience/audience.projection';
import { messageDecider, type MessageCommand } from '../messages/message.decider';
import { projectMessageEvents } from '../messages/message.projection';

export const USER_EVENTS_CONSUMER = 'user-events';

/**
 * What users do, from chat.user-events: their messages become inbound messages (status received,
 * message.received) and open the reply window; device receipts move outbound messages to delivered
 * and read; refused handoffs fail them (D4). Orgs and users feed the send rules. One consumer, so
 * one user's events apply in their order.
 */
export function userEventsConsumer(runtime: ServiceRuntime, appUserIdSecret: string): ConsumerSpec {
  const decide = async (em: EntityManager, messageId: string, appId: string, command: MessageCommand, cause: DomainEvent) => {
    try {
      await decideInTransaction({
        em,
        eventStore: runtime.eventStore,
        decider: messageDecider,
        streamId: `message-${messageId}`,
        command,
        meta: { now: command.metadata.now, appId, correlationId: cause.correlationId, causationId: cause.eventId, idSeed: cause.eventId },
        project: (tx, events) => projectMessageEvents(tx, events),
      });
    } catch (error) {
      // A receipt for a message that is not this app's outbound message changes nothing.
      if (!isDomainError(error)) throw error;
    }
  };

  return {
    name: USER_EVENTS_CONSUMER,
    topics: [TOPICS.chatUserEvents],
    handlers: {
      ...audienceHandlers,
      UserSentMessage: async (em, event) => {
        const d = event.data;
        const sentAt = new Date(event.occurredAt);
        const appUserId = await projectUserMessage(em, appUserIdSecret, event);
        await decide(
          em,
          d.messageId,
          d.appId,
          {
            type: 'RecordInboundMessage',
            data: {
              messageId: d.messageId,
              appUserId,
              userId: d.userId,
              type: d.type,
              text: d.text,
              media: d.media.map((file, i) => ({
                id: inboundMediaId(d.messageId, sentAt.getTime(), i),
                mimeType: file.mimeType,
                fileName: file.fileName,
                size: file.size,
                objectKey: file.objectKey,
              })),
              replyTo: d.replyTo,
            },
            metadata: { now: sentAt },
          },
          event,
        );
      },
      DeviceReceiptSent: async (em, event) => {
        const d = event.data;
        await decide(em, d.messageId, d.appId, { type: 'RecordReceipt', data: { status: d.status }, metadata: { now: new Date(event.occurredAt) } }, event);
      },
      MessageDeliveryRefused: async (em, event) => {
        const d = event.data;
        await decide(
          em,
          d.messageId,
          d.appId,
          { type: 'RecordDeliveryRefusal', data: { reason: d.reason }, metadata: { now: new Date(event.occurredAt) } },
          event,
        );
      },
    },
  };
}
