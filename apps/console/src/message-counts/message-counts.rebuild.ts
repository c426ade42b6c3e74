import type { TopicProjectionRebuildSpec } from '#platform/kafka';
import { messageCountsConsumer, messageCountsHandlers } from './message-counts.projection';

/** console.message_daily_counts from messaging.events, for `platformctl replay projections --service console` (from offset 0 by default). */
export function consoleTopicRebuild(): TopicProjectionRebuildSpec {
  return {
    service: 'console',
    schema: 'console',
    tables: ['message_daily_counts'],
    consumers: [{ consumer: `console.${messageCountsConsumer.name}`, topics: messageCountsConsumer.topics, handlers: messageCountsHandlers }],
  };
}
