import { TOPICS } from '#platform/contracts';
import type { TopicProjectionRebuildSpec } from '#platform/kafka';
import { USER_EVENTS_CONSUMER } from '../inbound/user-events.consumer';
import { appsConsumer, audienceHandlers, consentConsumer, projectUserMessage } from './audience.projection';
import { mediaConsumer } from './media.projection';

/**
 * Messaging's projections of other services' topics, for `platformctl replay projections --service
 * messaging --from-offset|--from-time`: the send rules' view of apps, orgs, recipients, app users,
 * consents, testers, media and reply windows. The handlers are the live consumers' own; of the
 * user-events consumer only the projection effects (its decisions append to the event store, which
 * a rebuild never touches).
 */
export function messagingTopicRebuild(appUserIdSecret: string): TopicProjectionRebuildSpec {
  return {
    service: 'messaging',
    schema: 'messaging',
    // The live writers' order: a user's message records the app user, then extends the window.
    tables: ['apps', 'orgs', 'recipients', 'app_users', 'consents', 'testers', 'media', 'windows'],
    consumers: [
      { consumer: `messaging.${appsConsumer.name}`, topics: appsConsumer.topics, handlers: appsConsumer.handlers },
      { consumer: `messaging.${consentConsumer.name}`, topics: consentConsumer.topics, handlers: consentConsumer.handlers },
      { consumer: `messaging.${mediaConsumer.name}`, topics: mediaConsumer.topics, handlers: mediaConsumer.handlers },
      {
        consumer: `messaging.${USER_EVENTS_CONSUMER}`,
        topics: [TOPICS.chatUserEvents],
        handlers: {
          ...audienceHandlers,
          UserSentMessage: async (em, event) => {
            await projectUserMessage(em, appUserIdSecret, event);
          },
        },
      },
    ],
  };
}
