// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoutes } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { appsConsumer, consentConsumer } from './audience/audience.projection';
import { mediaConsumer } from './audience/media.projection';
import { userEventsConsumer } from './inbound/user-events.consumer';
import { loadMessagingConfig } from './messaging.config';
import { MessagingModule } from './messaging.module';
import { messagingMigrations } from './persistence/migrations';
import { handoverOf } from './send-message/message-handover';

/**
 * Message events go to messaging.events keyed by conversation (`appId:appUserId`); each
 * `MessageSent` also goes to the chat product on chat.outbound as its handoff (D3), keyed by the
 * recipient (the conversation's shard: appUserId is a function of app and user).
 */
export function messagingOutboxRoute(event: DomainEvent): OutboxRoutes {
  const data = event.data as { appUserId: string; userId?: string };
  const conversation = { topic: TOPICS.messagingEvents, key: `${event.appId}:${data.appUserId}`, aggregateType: 'message' };
  if (event.type !== 'MessageSent') return conversation;
  const handedOver = handoverOf(event);
  return [conversation, { topic: TOPICS.chatOutbound, key: (handedOver.data as { userId: string }).userId, aggregateType: 'message', event: handedOver }];
}

export const messagingService: ServiceDefinition = {
  name: 'messaging',
  schema: 'messaging',
  defaultPort: 3010,
  rpcService: 'messaging',
  // messages.send is deduplicated by (app, Idempotency-Key); messages.get and apps.awaitVersion read.
  rpcOpsSafeToRerun: true,
  entities: [],
  migrations: messagingMigrations,
  outboxRoute: messagingOutboxRoute,
  consumers: (runtime) => [userEventsConsumer(runtime, loadMessagingConfig(runtime.config).appUserIdSecret), consentConsumer, appsConsumer, mediaConsumer],
  module: MessagingModule,
};

export function startMessaging(env: NodeJS.ProcessEnv = process.env, options: ServiceStartOptions = {}) {
  return startService(messagingService, env, options);
}

if (require.main === module) runMain(startMessaging);
