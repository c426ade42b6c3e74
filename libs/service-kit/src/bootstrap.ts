import 'reflect-metadata';
import type { INestApplication, Type, DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { MicroserviceOptions } from '@nestjs/microservices';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { assertKafkaUses, RPC_OPERATION_NAMES, rpcTopic, type RpcService } from '#platform/contracts';
import { kafkaClientConfig, RpcDispatcher, RpcKafkaServer, rpcServerKafkaOptions } from '#platform/kafka';
import { log } from './logger';
import { httpMetricsMiddleware } from './http-metrics';
import { kafkaTroubleLevel, MigrateOnlyComplete, type ServiceRuntime } from './service-runtime';

export interface StartServiceOptions {
  runtime: ServiceRuntime;
  module: Type<unknown> | DynamicModule;
  rpcService?: RpcService;
  /** See ServiceDefinition.rpcOpsSafeToRerun. */
  rpcOpsSafeToRerun?: boolean;
  port: number;
  /** Default: the config's BIND_HOST. */
  host?: string;
  /** Off for services that read raw bodies themselves (the gateway's admin API). */
  bodyParser?: boolean;
  /** Express middleware to mount before Nest's routes. */
  beforeListen?: (app: INestApplication) => void;
}

/** Creates the Nest app, joins the service's RPC consumer group and listens. */
export async function startNestService(options: StartServiceOptions): Promise<INestApplication> {
  const { runtime } = options;
  const app = await NestFactory.create<NestExpressApplication>(options.module, { logger: ['error', 'warn'], bodyParser: options.bodyParser ?? true });
  // Naming the framework only helps whoever looks for its known flaws.
  app.disable('x-powered-by');
  app.use(httpMetricsMiddleware(runtime.metrics));
  options.beforeListen?.(app);
  if (options.rpcService) {
    assertKafkaUses(runtime.config.serviceName, [{ kind: 'serve', service: options.rpcService }]);
    const server = new RpcKafkaServer(
      rpcServerKafkaOptions(
        kafkaClientConfig(`${runtime.config.serviceName}-rpc-${runtime.config.instanceId}`, runtime.config.kafkaBrokers, runtime.config.kafkaSecurity),
        rpcTopic(options.rpcService),
        runtime.config.kafkaSessionTimeoutMs,
      ),
      {
        maxInFlight: runtime.config.rpcMaxInFlight,
        slots: { maxInFlightPerApp: runtime.config.rpcMaxInFlightPerApp, maxWaitingPerApp: runtime.config.rpcMaxWaitingPerApp },
        onRefused: () => runtime.metrics.rpcServerRefused.inc(),
        // Request offsets of a service whose operations are safe to run again are committed once a
        // second instead of after every batch (about one OffsetCommit per request at moderate rates).
        commitEveryMs: options.rpcOpsSafeToRerun ? 1000 : undefined,
        onLag: (topic, partition, lag) =>
          runtime.metrics.kafkaConsumerLag.set({ consumer: `${runtime.config.serviceName}.rpc`, topic, partition: String(partition) }, lag),
        onError: (error) =>
          log(kafkaTroubleLevel(error), 'rpc server error', { service: runtime.config.serviceName, error: String((error as Error)?.message ?? error) }),
      },
    );
    runtime.trackMembership(() => server.member);
    runtime.trackConsumerLag({ consumerName: `${runtime.config.serviceName}.rpc`, groupId: server.consumerGroupId, assignment: () => server.assignment() });
    app.connectMicroservice<MicroserviceOptions>({ strategy: server });
    // The providers register their handlers when the app initialises: before the consumer joins its
    // group, or the first requests of a restart would find no handler (listen would init it too late).
    await app.init();
    assertEveryOperationHandled(app.get(RpcDispatcher), options.rpcService);
    await app.startAllMicroservices();
    runtime.startupPhase('rpc');
  }
  const host = options.host ?? runtime.config.bindHost;
  await app.listen(options.port, host);
  runtime.startupPhase('listening');
  log('info', 'service started', {
    service: runtime.config.serviceName,
    host,
    port: options.port,
    instanceId: runtime.config.instanceId,
    startupMs: runtime.startupTimings(),
  });
  return app;
}

/**
 * Stops Nest, then the runtime, on SIGTERM/SIGINT, and exits non-zero on a failed start; exits 0 when
 * the start stopped after the migrations because of MIGRATE_ONLY=true.
 */
export function runMain(start: () => Promise<{ close: () => Promise<void> }>): void {
  let closing = false;
  start()
    .then((handle) => {
      const stop = async (signal: string) => {
        if (closing) return;
        closing = true;
        log('info', 'shutting down', { signal });
        await handle.close().catch((error) => log('error', 'shutdown failed', { error: String(error) }));
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    })
    .catch((error) => {
      if (error instanceof MigrateOnlyComplete) {
        log('info', 'migrations done, exiting (MIGRATE_ONLY=true)', { service: error.serviceName });
        process.exit(0);
      } else {
        log('error', 'failed to start', { error: String((error as Error)?.stack ?? error) });
        process.exit(1);
      }
    });
}

/**
 * A service that lacks a handler for an operation of its contract (libs/contracts RPC_OPERATION_NAMES)
 * refuses to start, so the gap shows in the first test that starts it rather than as a refused call.
 */
export function assertEveryOperationHandled(dispatcher: Pick<RpcDispatcher, 'handles'>, service: RpcService): void {
  const missing = RPC_OPERATION_NAMES[service].filter((op) => !dispatcher.handles(op));
  if (missing.length > 0) throw new Error(`${service} has no handler for ${missing.join(', ')} (libs/contracts rpc-operations.ts)`);
}
