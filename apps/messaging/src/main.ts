// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { carriedAcceptance, TOPICS, type DomainEvent, type MessageSent } from '#platform/contracts';
import type { OutboxRoutes } from '#platform/event-store';
import { runMain, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { appsConsumer, consentConsumer } from './audience/audience.projection';
import { mediaConsumer } from './audience/media.projection';
import { userEventsConsumer } from './inbound/user-events.consumer';
import { loadMessagingConfig } from './messaging.config';
import { MessagingModule } from './messaging.module';
import { messagingMigrations } from './persistence/migrations';
import { handoverOf } from './send-message/message-handover';
import { TEMPLATE_EVENT_TYPES } from './templates/template.projection';

/**
 * Template events go to messaging.events keyed by app. Message events go to messaging.events keyed by conversation (`appId:appUserId`); each
 * `MessageSent` also goes to the chat product on chat.outbound as its handoff (D3), keyed by the
 * recipient (the conversation's shard: appUserId is a function of app and user).
 */
export function messagingOutboxRoute(event: DomainEvent): OutboxRoutes {
  // Template events (ADR 0222) are keyed by app, so one app's template events stay in order.
  if (TEMPLATE_EVENT_TYPES.includes(event.type)) return { topic: TOPICS.messagingEvents, key: event.appId as string, aggregateType: 'template' };
  const data = event.data as { appUserId: string; userId?: string };
  // Never stored, derived from MessageSent below; named here too, so the topics this route reaches are listed by type (kafka-uses).
  if (event.type === 'MessageHandedOver') return { topic: TOPICS.chatOutbound, key: data.userId as string, aggregateType: 'message' };
  const conversation = { topic: TOPICS.messagingEvents, key: `${event.appId}:${data.appUserId}`, aggregateType: 'message' };
  // A MessageSent stored before it carried the acceptance had its handover written beside it.
  const sent = event.type === 'MessageSent' ? carriedAcceptance(event.data as MessageSent['data']) : null;
  if (!sent) return conversation;
  return [conversation, { topic: TOPICS.chatOutbound, key: sent.userId, aggregateType: 'message', derive: () => handoverOf(event) }];
}

export const messagingService: ServiceDefinition = {
  name: 'messaging',
  schema: 'messaging',
  defaultPort: 3010,
  rpcService: 'messaging',
  // messages.send is deduplicated by (app, Idempotency-Key); messages.get and apps.awaitVersion read.
  // A template creation run again is refused (template_exists); a change run again is one more version to review.
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
