// First: instruments pg before anything loads it (when traces are exported).
import '#platform/tracing';
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { TestClock } from '#platform/clock';
import { ADMIN_BASE_PATH, assertKafkaUses, isEventOf, RPC_TOPIC_PARTITIONS, TOPICS, type DomainEvent } from '#platform/contracts';
import type { OutboxRoute } from '#platform/event-store';
import { Counter } from 'prom-client';
import { claimReplyPartition, log, runMain, ServiceKitModule, ServiceRuntime, startNestService } from '#platform/service-kit';
import { createAdminPipeline } from './admin-api/admin-api.pipeline';
import { adminRoutes } from './admin-api/admin-routes';
import { ApiKeyCache, postgresApiKeyStore } from './api-keys/api-key.cache';
import { ApiKeysRpc } from './api-keys/api-keys.rpc';
import { ApiKeysService } from './api-keys/api-keys.service';
import { AppAccessCache } from './app-status/app-access.cache';
import { loadGatewayConfig } from './gateway.config';
import { cacheTopics, GATEWAY_CONSUMERS, gatewayRpcClient } from './gateway-kafka';
import { GatewayModule } from './gateway.module';
import { ApiKeyView } from './persistence/api-key.entity';
import { AppAccessView } from './persistence/app-access.entity';
import { gatewayMigrations } from './persistence/migrations';
import { answerParserRefusals } from './http/client-error.handler';
import { rememberValidationMetadatas } from './http/validation-metadata.patch';
import { RouteNotFoundFilter } from './http/not-found.filter';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { referenceRoutes } from './openapi/reference-routes';
import { ListenStreams } from './listen/listen-streams';
import { FinishedKeys } from './idempotency/finished-keys';
import { createPublicPipeline } from './public-api/public-api.pipeline';
import { publicRoutes } from './public-api/public-routes';
import { ReplayWhenLimited } from './public-api/replay-when-limited';
import { postgresRateBucketStore } from './rate-limits/rate-bucket.store';
import { RateLimiter } from './rate-limits/rate-limiter';
import { RequestLogPruner } from './request-log/request-log.pruner';
import { RequestLogRecorder } from './request-log/request-log.recorder';
import { RequestLogRpc } from './request-log/request-log.rpc';
import { TestClockService } from './test-clock/test-clock.service';

/** Gateway events go to gateway.events keyed by app; an API key's hash and display prefix stay in the gateway's own store. */
export function gatewayOutboxRoute(event: DomainEvent): OutboxRoute {
  if (event.type === 'ApiKeyCreated') {
    const { keyHash: _hash, prefix: _prefix, ...published } = event.data as Record<string, unknown>;
    return { topic: TOPICS.gatewayEvents, key: event.appId ?? event.streamId, aggregateType: 'api-keys', publishedData: published };
  }
  return { topic: TOPICS.gatewayEvents, key: event.appId ?? event.streamId, aggregateType: event.type === 'TestClockAdvanced' ? 'test-clock' : 'api-keys' };
}

export async function startGateway(env: NodeJS.ProcessEnv = process.env) {
  // Every DTO's decorators have run (their modules are imported above): from now on a class's rules are worked out once.
  rememberValidationMetadatas();
  const config = loadGatewayConfig(env);
  const runtime = new ServiceRuntime({
    config,
    entities: [ApiKeyView, AppAccessView],
    migrations: gatewayMigrations,
    outboxRoute: gatewayOutboxRoute,
    // Seals the keys its keys.create answers (rpc-sealing.ts), as its RPC client does.
    secretKeys: config.secretKeys,
  });
  await runtime.init();

  // Each replica reads the replies of its own partition only (ADR 0203).
  const replies = await claimReplyPartition({
    // The service's own role, as its pool connects: the bootstrap URL is for migrations.
    databaseUrl: config.serviceDatabaseUrl,
    instanceId: config.instanceId,
    partitions: RPC_TOPIC_PARTITIONS,
    onError: (error) => log('warn', 'reply partition claim connection lost', { error: String((error as Error)?.message ?? error) }),
  });
  log('info', 'reply partition claimed', { partition: replies.partition, exclusive: replies.exclusive });
  const rpc = gatewayRpcClient(config, replies.partition, (target, op, seconds, outcome) =>
    runtime.metrics.rpcClientDuration.observe({ target, op, outcome }, seconds),
  );
  assertKafkaUses('gateway', rpc.kafkaUses());
  runtime.startupPhase('init');
  const keyCache = new ApiKeyCache(postgresApiKeyStore(runtime), runtime.clock, runtime.metrics.registry);
  const appCache = new AppAccessCache(runtime);
  // Each waits for a group join: at once, a restarted replica waits for the slowest only.
  await Promise.all([
    rpc.connect(),
    ...GATEWAY_CONSUMERS.map((consumer) => runtime.consume(consumer)),
    // Every replica keeps its caches true from the events themselves.
    runtime.broadcastConsumer('caches', cacheTopics(), (event) => {
      if (isEventOf(event, 'ApiKeyRevoked')) keyCache.evictKey(event.data.keyId);
      else if (event.type === 'ApiKeyCreated') keyCache.forgetMisses();
      else if (event.type === 'AppCreated' || event.type === 'AppStatusChanged') appCache.apply(event);
    }),
  ]);
  runtime.startupPhase('consumers');

  const keys = new ApiKeysService(runtime, keyCache);
  const testClock = runtime.clock instanceof TestClock ? new TestClockService(runtime, runtime.clock, rpc) : null;
  const admin = createAdminPipeline({
    routes: adminRoutes({
      rpc,
      keys,
      apps: appCache,
      clock: runtime.clock,
      testClock,
      appUserIdSecret: config.appUserIdSecret,
      mailSinkUrl: config.mailSinkUrl,
    }),
    adminToken: config.adminToken,
    docsUrl: config.docsUrl,
    basePath: ADMIN_BASE_PATH,
  });
  const nest = await startNestService({
    runtime,
    module: {
      module: GatewayModule,
      imports: [ServiceKitModule.forRoot(runtime, 'gateway')],
      providers: [{ provide: ApiKeysService, useValue: keys }, ApiKeysRpc, RequestLogRpc, RequestLogPruner],
    },
    rpcService: 'gateway',
    port: config.adminPort,
    bodyParser: false,
    beforeListen: (app) => {
      const adminServer = app.getHttpServer() as Server;
      limitSlowClients(adminServer, config);
      answerParserRefusals(adminServer, config.docsUrl);
      app.use(ADMIN_BASE_PATH, (req: never, res: never) => void admin(req, res));
      app.useGlobalFilters(new RouteNotFoundFilter(config.docsUrl));
    },
  });

  const listenStreams = new ListenStreams();
  const routes = publicRoutes({ rpc, clock: runtime.clock, listenStreams });
  const document = buildOpenApiDocument(routes, { docsUrl: config.docsUrl, rateLimit: { rps: config.rateLimitRps, burst: config.rateLimitBurst } });
  // Buckets shared by every replica, leased in blocks (docs/adr/0038-rate-limits-shared-in-leased-blocks.md).
  const leases = new Counter({
    name: 'gateway_rate_limit_leases_total',
    help: 'Token leases from the shared rate buckets in Postgres',
    labelNames: ['limiter', 'outcome'],
    registers: [runtime.metrics.registry],
  });
  const buckets = postgresRateBucketStore(runtime);
  const limiters = [
    new RateLimiter(buckets, 'app', config.rateLimitRps, config.rateLimitBurst, { onLease: (outcome) => leases.inc({ limiter: 'app', outcome }) }),
    new RateLimiter(buckets, 'auth', config.authFailureRps, config.authFailureBurst, { onLease: (outcome) => leases.inc({ limiter: 'auth', outcome }) }),
  ];
  const forgetIdleBuckets = setInterval(() => {
    for (const limiter of limiters)
      void limiter.forgetIdle().catch((error) => log('warn', 'rate bucket cleanup failed', { error: String((error as Error)?.message ?? error) }));
  }, 60_000);
  forgetIdleBuckets.unref();
  // Off the request path: a bounded buffer written in batches (docs/adr/0216-request-log-off-the-request-path.md).
  const requestLog = new RequestLogRecorder(runtime, keyCache);
  requestLog.start();
  const pipeline = createPublicPipeline({
    routes,
    reference: referenceRoutes(document),
    keys: keyCache,
    apps: appCache,
    limiter: limiters[0],
    replays: new ReplayWhenLimited(new FinishedKeys(), runtime.clock, { ratePerSecond: config.rateLimitRps, burst: config.rateLimitBurst }),
    authFailures: limiters[1],
    trustedProxies: config.trustedProxies,
    clock: runtime.clock,
    docsUrl: config.docsUrl,
    metrics: runtime.metrics,
    bodyTimeoutMs: config.bodyTimeoutMs,
    requestLog,
  });
  const server: Server = createServer((req, res) => void pipeline(req, res));
  server.keepAliveTimeout = 65_000;
  limitSlowClients(server, config);
  answerParserRefusals(server, config.docsUrl);
  await new Promise<void>((resolve) => server.listen(config.port, config.bindHost, resolve));
  log('info', 'public API listening', { host: config.bindHost, port: config.port, adminPort: config.adminPort });

  return {
    runtime,
    close: async () => {
      // Event streams never finish on their own; their clients resume elsewhere.
      clearInterval(forgetIdleBuckets);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      listenStreams.closeAll();
      await closed;
      server.closeAllConnections();
      // Every request has been answered: what the log holds is written before the pool closes.
      await requestLog.close();
      await nest.close();
      await rpc.close();
      await replies.release();
      await runtime.close();
    },
  };
}

/** A client that stalls in its headers or body is answered 408 and let go, not held for Node's 300 s. */
function limitSlowClients(server: Server, config: { headersTimeoutMs: number; requestTimeoutMs: number }): void {
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = config.requestTimeoutMs;
  // Node checks both only this often (30 s by default), so a short timeout would fire late; read at listen.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    5_000,
    Math.max(250, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4)),
  );
}

if (require.main === module) runMain(startGateway);
