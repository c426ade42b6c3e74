import type { TopicProjectionRebuildSpec } from '#platform/kafka';
import { appAccessConsumer } from './app-access.projection';

/** gateway.app_access from profile.events, for `platformctl replay projections --service gateway`. */
export function gatewayTopicRebuild(): TopicProjectionRebuildSpec {
  return {
    service: 'gateway',
    schema: 'gateway',
    tables: ['app_access'],
    consumers: [{ consumer: `gateway.${appAccessConsumer.name}`, topics: appAccessConsumer.topics, handlers: appAccessConsumer.handlers }],
  };
}
