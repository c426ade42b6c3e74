import type { TopicProjectionRebuildSpec } from '@platform/kafka';
import { appsConsumer } from './apps.projection';

/** consent.apps from profile.events, for `platformctl replay projections --service consent`. */
export function consentTopicRebuild(): TopicProjectionRebuildSpec {
  return {
    service: 'consent',
    schema: 'consent',
    tables: ['apps'],
    consumers: [{ consumer: `consent.${appsConsumer.name}`, topics: appsConsumer.topics, handlers: appsConsumer.handlers }],
  };
}
