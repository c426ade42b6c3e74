import type { Options, MigrationObject } from '@mikro-orm/core';
import type { Type } from '@nestjs/common';
import type { DomainEvent, RpcService } from '@platform/contracts';
import type { OutboxRoute } from '@platform/event-store';
import { startNestService } from './bootstrap';
import { loadBaseConfig } from './config';
import { ServiceKitModule } from './service-kit.module';
import { ServiceRuntime, type ConsumerSpec } from './service-runtime';

/** What makes one service: its names, schema, persistence, what it publishes and consumes, its Nest module. */
export interface ServiceDefinition {
  name: string;
  schema: string;
  defaultPort: number;
  rpcService?: RpcService;
  entities: Options['entities'];
  migrations: MigrationObject[];
  outboxRoute: (event: DomainEvent) => OutboxRoute | null;
  /** Consumers to start after the runtime is up (a function when handlers need the runtime). */
  consumers?: ConsumerSpec[] | ((runtime: ServiceRuntime) => ConsumerSpec[]);
  module: Type<unknown>;
}

/** Boots a service: runtime (schema, migrations, Kafka, relay), its consumers, then Nest with health and RPC. */
export async function startService(definition: ServiceDefinition, env: NodeJS.ProcessEnv = process.env) {
  const config = loadBaseConfig(definition.name, definition.schema, definition.defaultPort, env);
  const runtime = new ServiceRuntime({ config, entities: definition.entities, migrations: definition.migrations, outboxRoute: definition.outboxRoute });
  await runtime.init();
  const consumers = typeof definition.consumers === 'function' ? definition.consumers(runtime) : (definition.consumers ?? []);
  for (const consumer of consumers) await runtime.consume(consumer);
  const app = await startNestService({
    runtime,
    module: { module: definition.module, imports: [ServiceKitModule.forRoot(runtime, definition.rpcService)] },
    rpcService: definition.rpcService,
    port: config.port,
  });
  return {
    runtime,
    close: async () => {
      await app.close();
      await runtime.close();
    },
  };
}

/** Outbox route of services whose events are keyed by app (or by stream when app-less). */
export function routeByApp(topic: () => string): (event: DomainEvent) => OutboxRoute {
  return (event) => ({ topic: topic(), key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] });
}
