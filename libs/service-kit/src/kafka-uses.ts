import { EVENT_DATA_SCHEMAS, type DomainEvent, type KafkaUse } from '#platform/contracts';
import { routesOf } from '#platform/event-store';
import { loadBaseConfig } from './config';
import { ServiceRuntime } from './service-runtime';
import type { ServiceDefinition } from './start-service';

/**
 * What a service definition does on Kafka, read from the definition itself as startService starts
 * it: its consumers (built as at start, with `runtime`), the topics its outbox route sends the
 * published event types to, and the RPC service it answers. Each app's kafka-access.spec.ts holds
 * this against the access map in libs/contracts.
 */
export function serviceKafkaUses(definition: ServiceDefinition, runtime: ServiceRuntime): KafkaUse[] {
  const consumers = typeof definition.consumers === 'function' ? definition.consumers(runtime) : (definition.consumers ?? []);
  return [
    ...consumers.map((consumer): KafkaUse => ({ kind: 'consumer', name: consumer.name, topics: consumer.topics })),
    ...outboxTopics(definition.outboxRoute).map((topic): KafkaUse => ({ kind: 'produce', topic })),
    ...(definition.rpcService ? [{ kind: 'serve', service: definition.rpcService } satisfies KafkaUse] : []),
  ];
}

/** serviceKafkaUses with a runtime made for it and never started (no connection): the definition as an app declares it. */
export function definitionKafkaUses(definition: ServiceDefinition, env: NodeJS.ProcessEnv = {}): KafkaUse[] {
  const config = loadBaseConfig(definition.name, definition.schema, definition.defaultPort, env);
  return serviceKafkaUses(definition, new ServiceRuntime({ config, entities: [], migrations: [], outboxRoute: definition.outboxRoute }));
}

/** Where an outbox route sends each event type of the contracts (a route picks the topic by type). */
export function outboxTopics(route: ServiceDefinition['outboxRoute']): string[] {
  const topics = new Set<string>();
  for (const type of Object.keys(EVENT_DATA_SCHEMAS)) {
    const event: DomainEvent = {
      eventId: '00000000-0000-7000-8000-000000000000',
      type,
      schemaVersion: 1,
      occurredAt: new Date(0).toISOString(),
      appId: 'app_1',
      correlationId: null,
      causationId: null,
      streamId: 'stream-1',
      streamVersion: 1,
      data: {},
    };
    for (const routed of routesOf(route(event))) topics.add(routed.topic);
  }
  return [...topics].sort();
}
