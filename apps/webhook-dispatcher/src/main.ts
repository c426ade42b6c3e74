// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { runMain, SecretKeyRing, startService, type ServiceDefinition, type ServiceStartOptions } from '#platform/service-kit';
import { webhookDispatcherMigrations } from './persistence/migrations';
import { mediaRegistryConsumer, publicEventsConsumer } from './public-events/public-events.consumer';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

/**
 * Only WebhookEndpointDisabled leaves the service (D25, on webhooks.events keyed by endpointId, for a
 * mailer); the other endpoint events stay in the dispatcher's event store.
 */
export function webhookOutboxRoute(event: DomainEvent): OutboxRoute | null {
  if (event.type !== 'WebhookEndpointDisabled') return null;
  return { topic: TOPICS.webhooksEvents, key: (event.data as { endpointId: string }).endpointId, aggregateType: 'endpoint' };
}

/** The dispatcher with its key ring: its migrations seal stored credentials with it. */
export function webhookDispatcherService(secretKeys: SecretKeyRing): ServiceDefinition {
  return {
    name: 'webhook-dispatcher',
    schema: 'webhook_dispatcher',
    defaultPort: 3050,
    rpcService: 'webhooks',
    entities: [],
    migrations: webhookDispatcherMigrations(secretKeys),
    secretKeys,
    outboxRoute: webhookOutboxRoute,
    consumers: (runtime) => [publicEventsConsumer(runtime), mediaRegistryConsumer()],
    module: WebhookDispatcherModule,
  };
}

export async function startWebhookDispatcher(env: NodeJS.ProcessEnv = process.env, options: ServiceStartOptions = {}) {
  // Signing secrets and verify tokens are stored sealed; production refuses to start without SECRETS_KEYS.
  return startService(webhookDispatcherService(SecretKeyRing.fromEnv(env)), env, options);
}

if (require.main === module) runMain(startWebhookDispatcher);
