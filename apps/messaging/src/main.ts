// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { appsConsumer, consentConsumer } from './audience/audience.projection';
import { mediaConsumer } from './audience/media.projection';
import { userEventsConsumer } from './inbound/user-events.consumer';
import { loadMessagingConfig } from './messaging.config';
import { MessagingModule } from './messaging.module';
import { messagingMigrations } from './persistence/migrations';

/**
 * Message events go to messaging.events keyed by conversation (`appId:appUserId`); the handoff of
 * each sent message goes to the chat product on chat.outbound, keyed by the recipient.
 */
export function messagingOutboxRoute(event: DomainEvent): OutboxRoute {
  const data = event.data as { appUserId: string; userId?: string };
  if (event.type === 'MessageHandedOver') return { topic: TOPICS.chatOutbound, key: data.userId as string, aggregateType: 'message' };
  return { topic: TOPICS.messagingEvents, key: `${event.appId}:${data.appUserId}`, aggregateType: 'message' };
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
