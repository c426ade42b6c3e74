import type { EntityManager } from '@mikro-orm/postgresql';
import { inboundMediaId, TOPICS } from '#platform/contracts';
import { decideInTransaction } from '#platform/event-store';
import type { ConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { mediaDecider } from '../media/media.decider';
import { projectMediaEvents } from '../media/media.projection';

export const USER_MEDIA_CONSUMER = 'user-media';

/**
 * Files users send the app (chat.user-events): the chat product stored them in the bucket, so they
 * are media of source `user`, ready at once. Their ids are derived exactly as messaging derives the
 * ids it lists in message.received, so both name the same file without asking each other.
 */
export function userMediaConsumer(runtime: ServiceRuntime): ConsumerSpec {
  return {
    name: USER_MEDIA_CONSUMER,
    topics: [TOPICS.chatUserEvents],
    handlers: {
      UserSentMessage: async (em: EntityManager, event) => {
        const d = event.data;
        const sentAtMs = new Date(event.occurredAt).getTime();
        for (const [i, file] of d.media.entries()) {
          const mediaId = inboundMediaId(d.messageId, sentAtMs, i);
          await decideInTransaction({
            em,
            eventStore: runtime.eventStore,
            decider: mediaDecider,
            streamId: `media-${mediaId}`,
            command: {
              type: 'RecordUserMedia',
              data: {
                mediaId,
                mimeType: file.mimeType,
                fileName: file.fileName,
                size: file.size,
                objectKey: file.objectKey,
                messageId: d.messageId,
                userId: d.userId,
              },
              metadata: { now: new Date(event.occurredAt) },
            },
            meta: { now: new Date(event.occurredAt), appId: d.appId, correlationId: event.correlationId, causationId: event.eventId, idSeed: event.eventId },
            project: (tx, stored) => projectMediaEvents(tx, stored),
          });
        }
      },
    },
  };
}
