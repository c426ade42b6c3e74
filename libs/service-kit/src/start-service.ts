import type { Options, MigrationObject } from '@mikro-orm/core';
import type { INestApplication, Type } from '@nestjs/common';
import type { DomainEvent, RpcService } from '#platform/contracts';
import type { OutboxRoute, OutboxRoutes } from '#platform/event-store';
import { startNestService } from './bootstrap';
import { loadBaseConfig } from './config';
import { startHealthServer } from './health-server';
import type { SecretKeyRing } from './secret-key-ring';
import { ServiceKitModule } from './service-kit.module';
import { ServiceRuntime, type AnyConsumerSpec } from './service-runtime';

/** What makes one service: its names, schema, persistence, what it publishes and consumes, its Nest module. */
export interface ServiceDefinition {
  name: string;
  schema: string;
  defaultPort: number;
  rpcService?: RpcService;
  /**
   * Every RPC operation of the service gives the same outcome when run again: a read, or a write
   * deduplicated by the caller's Idempotency-Key. Its request offsets may then be committed on an
   * interval, so a crash or a rebalance may hand the last second's requests to a server again (one
   * whose deadline passed is dropped; the rest run again and change nothing). Others commit after
   * every batch, before their requests are answered.
   */
  rpcOpsSafeToRerun?: boolean;
  entities: Options['entities'];
  migrations: MigrationObject[];
  outboxRoute: (event: DomainEvent) => OutboxRoutes;
  /** Consumers to start after the runtime is up (a function when handlers need the runtime). */
  consumers?: AnyConsumerSpec[] | ((runtime: ServiceRuntime) => AnyConsumerSpec[]);
  module: Type<unknown>;
  /** Express middleware to mount before Nest's routes (see StartServiceOptions). */
  beforeListen?: (app: INestApplication) => void;
  /** false: no body parser before the routes; the service reads bodies itself, after its own checks. */
  bodyParser?: boolean;
  /** A service that keeps secrets: its key ring (SECRETS_KEYS), for storage and for the sealed fields of its RPC. */
  secretKeys?: SecretKeyRing;
  /**
   * A service whose port faces people (the console): /healthz, /readyz and /metrics answer on this
   * port instead, and 404 on its own.
   */
  internalPort?: number;
}

export interface ServiceStartOptions {
  /**
   * false: a projection-only process: migrations and consumers, no HTTP, no RPC, no publishing.
   * Used to rebuild a service's state from the topics into a fresh schema beside the live one.
   */
  serve?: boolean;
  /** Consumer groups of their own (with serve false), so the rebuild reads every topic from offset 0. */
  consumerGroupPrefix?: string;
}

/** Boots a service: runtime (schema, migrations, Kafka, relay), its consumers, then Nest with health and RPC. */
export async function startService(definition: ServiceDefinition, env: NodeJS.ProcessEnv = process.env, options: ServiceStartOptions = {}) {
  const config = loadBaseConfig(definition.name, definition.schema, definition.defaultPort, env);
  const serve = options.serve !== false;
  const runtime = new ServiceRuntime({
    secretKeys: definition.secretKeys,
    config,
    entities: definition.entities,
    migrations: definition.migrations,
    outboxRoute: definition.outboxRoute,
    publish: serve,
    consumerGroupPrefix: options.consumerGroupPrefix,
  });
  await runtime.init();
  runtime.startupPhase('init');
  const consumers = typeof definition.consumers === 'function' ? definition.consumers(runtime) : (definition.consumers ?? []);
  // Each start waits for its group's join: together, a restarted replica waits once for the slowest
  // (a dead predecessor's session), not once per group.
  await Promise.all(consumers.map((consumer) => runtime.consume(consumer)));
  runtime.startupPhase('consumers');
  if (!serve) return { runtime, close: () => runtime.close() };
  const internal = definition.internalPort !== undefined;
  const app = await startNestService({
    runtime,
    module: { module: definition.module, imports: [ServiceKitModule.forRoot(runtime, definition.rpcService, { health: !internal })] },
    rpcService: definition.rpcService,
    rpcOpsSafeToRerun: definition.rpcOpsSafeToRerun,
    port: config.port,
    beforeListen: definition.beforeListen,
    bodyParser: definition.bodyParser,
  });
  // After the service's own port listens: ready means reachable.
  const healthServer = internal ? await startHealthServer(runtime, definition.internalPort!, config.bindHost) : null;
  return {
    runtime,
    app,
    close: async () => {
      const closed = healthServer ? new Promise<void>((resolve) => healthServer.close(() => resolve())) : Promise.resolve();
      healthServer?.closeAllConnections();
      await closed;
      await app.close();
      await runtime.close();
    },
  };
}

/** Outbox route of services whose events are keyed by app (or by stream when app-less). */
export function routeByApp(topic: () => string): (event: DomainEvent) => OutboxRoute {
  return (event) => ({ topic: topic(), key: event.appId ?? event.streamId, aggregateType: event.streamId.split('-', 1)[0] });
}
