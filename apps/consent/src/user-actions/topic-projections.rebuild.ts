import { appUserIdFor, TOPICS } from '#platform/contracts';
import type { TopicProjectionRebuildSpec } from '#platform/kafka';
import { appsConsumer } from '../apps/apps.projection';
import { extendReplyWindow, USER_ACTIONS_CONSUMER } from './user-actions.consumer';

/**
 * Consent's projections of other services' topics, for `platformctl replay projections --service
 * consent --from-offset|--from-time`: apps (opt-in link URLs) from profile.events and reply windows
 * from users' messages on chat.user-events. A message whose RecordUserMessage the decider refused
 * never moved the window live, and refused_user_actions (read as it is) says which those were.
 */
export function consentTopicRebuild(appUserIdSecret: string): TopicProjectionRebuildSpec {
  return {
    service: 'consent',
    schema: 'consent',
    tables: ['apps', 'reply_windows'],
    readsLive: ['refused_user_actions'],
    consumers: [
      { consumer: `consent.${appsConsumer.name}`, topics: appsConsumer.topics, handlers: appsConsumer.handlers },
      {
        consumer: `consent.${USER_ACTIONS_CONSUMER}`,
        topics: [TOPICS.chatUserEvents],
        handlers: {
          UserSentMessage: async (em, event) => {
            const refused: unknown[] = await em.execute(`select 1 from consent.refused_user_actions where event_id = ?`, [event.eventId]);
            if (refused.length > 0) return;
            const d = event.data;
            await extendReplyWindow(em, d.appId, appUserIdFor(appUserIdSecret, d.appId, d.userId), new Date(event.occurredAt));
          },
        },
      },
    ],
  };
}
