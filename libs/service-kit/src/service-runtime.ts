// Over 300 lines: the runtime is the one owner of a service's connections (Postgres, Kafka, relay,
// consumers, health), and their start and stop order lives here together.
import { SpanKind } from '@opentelemetry/api';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PostgresOrm } from '#platform/postgres';
import type { Options, MigrationObject } from '@mikro-orm/core';
import type { Kafka, Producer } from 'kafkajs';
import { Clock, clockFromMode, TestClock } from '#platform/clock';
import { allTopicSpecs, assertKafkaUses, kafkaNamespace, kafkaTopicsOf, kafkaUseRefusal, isKafkaApp, TOPICS, type DomainEvent } from '#platform/contracts';
import { EventStore, OutboxRelay, routesOf, type OutboxRoutes } from '#platform/event-store';
import {
  ConsumerLagPoller,
  createKafka,
  ensureTopics,
  InboxConsumer,
  isTransientKafkaError,
  KafkaHealth,
  KeyHashPartitioner,
  setKafkaLogSink,
  byEventType,
  startBroadcastConsumer,
  type EventHandlers,
  type LagSource,
  type PipelinedEffect,
} from '#platform/kafka';
import type { BaseConfig } from './config';
import type { SecretKeyRing } from './secret-key-ring';
import { bootstrapServiceSchema, createOrm, runMigrations } from './database';
import type { BackgroundJob } from './background-job';
import { inboxRetentionJob, rebuildLeftoversJob } from './inbox-retention';
import { runWithLogContext } from './log-context';
import { exportTracer, startTraceExport, stopTraceExport } from './trace-export';
import { log, logEnabled, setLogService } from './logger';
import { ServiceMetrics } from './metrics';
import { ProjectionWaiter } from './projection-waiter';

const READINESS_DEADLINE_MS = 1500;

/** The check's answer, or false once `ms` passed (or it failed). */
function withDeadline(check: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([check.catch(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

export interface ServiceRuntimeOptions {
  config: BaseConfig;
  entities: Options['entities'];
  migrations: MigrationObject[];
  /** Topic and key of each event this service publishes; null keeps an event private. */
  outboxRoute: (event: DomainEvent) => OutboxRoutes;
  /** false: keep outbox rows unpublished (a rebuild into a fresh schema must not publish its events again). */
  publish?: boolean;
  /** Put between the namespace and the consumer name in group ids, so a rebuild reads topics from offset 0 in groups of its own. */
  consumerGroupPrefix?: string;
  /** The key ring of a service that keeps secrets (webhook signing secrets, verify tokens). */
  secretKeys?: SecretKeyRing;
}

export interface ConsumerSpec {
  /** Short name; the group and inbox consumer name become `<service>.<name>`. */
  name: string;
  topics: string[];
  /** Effects by event type, each given its event narrowed; other types on the topics are skipped. */
  handlers: EventHandlers;
  /** Partitions applied at once (default 1); see InboxConsumerOptions. */
  partitionsConcurrently?: number;
  /** Wait after a small batch before the next fetch; see InboxConsumerOptions. */
  paceMs?: number;
}

/**
 * A consumer whose effect takes two round trips to Postgres per slice of events (hot consumers); see
 * PipelinedEffect. With `pipelined.dedupedByEffect` the effect is its own inbox: the consumer writes
 * no inbox rows, and `waitForApplied` refuses to wait for it.
 */
export interface PipelinedConsumerSpec extends Omit<ConsumerSpec, 'handlers'> {
  pipelined: PipelinedEffect;
}

export type AnyConsumerSpec = ConsumerSpec | PipelinedConsumerSpec;

/**
 * Rejection of ServiceRuntime.init() with MIGRATE_ONLY=true once the role, schema and migrations are
 * done: it stops the service's start sequence there, and runMain turns it into exit code 0.
 */
export class MigrateOnlyComplete extends Error {
  constructor(readonly serviceName: string) {
    super(`${serviceName}: migrations done (MIGRATE_ONLY=true), not starting the service`);
  }
}

/**
 * Everything a service process holds besides Nest: its ORM (own role, own schema, migrated), Kafka
 * producer, event store, outbox relay, consumers and clock. Created before Nest so that a service
 * that cannot reach Postgres or Kafka fails fast with a clear message.
 */
export class ServiceRuntime {
  readonly metrics: ServiceMetrics;
  readonly clock: Clock;
  readonly eventStore: EventStore;
  readonly waiter = new ProjectionWaiter();
  kafka!: Kafka;
  producer!: Producer;
  orm!: PostgresOrm;
  private relay: OutboxRelay | null = null;
  private consumers: InboxConsumer[] = [];
  private readonly handledTypes = new Map<string, Set<string>>();
  /** Consumers whose effect is its own inbox (they write no inbox rows). */
  private readonly withoutInbox = new Set<string>();
  private broadcast: { disconnect: () => Promise<void> }[] = [];
  private kafkaUp = false;
  private backlogTimer: NodeJS.Timeout | null = null;
  private lagPoller: ConsumerLagPoller | null = null;
  private readonly inboxRetention: BackgroundJob;
  private readonly rebuildLeftovers: BackgroundJob;
  private kafkaHealth: KafkaHealth | null = null;
  /** Milliseconds from the process's start to the end of each startup phase (logged once started). */
  private readonly startupPhases: Record<string, number> = {};
  /** Group members besides the inbox consumers (the RPC server) whose absence makes the service unready. */
  private readonly members: (() => boolean)[] = [];

  constructor(private readonly options: ServiceRuntimeOptions) {
    setLogService(options.config.serviceName);
    startTraceExport(options.config.serviceName, options.config.env);
    setKafkaLogSink((level, msg, fields) => log(level, msg, fields));
    this.metrics = new ServiceMetrics(options.config.serviceName);
    this.clock = clockFromMode(options.config.clockMode);
    this.eventStore = new EventStore(options.config.schema, publishableRoute(options.config.serviceName, options.outboxRoute));
    this.inboxRetention = inboxRetentionJob({ schema: options.config.schema, em: () => this.em(), clock: this.clock, pruned: this.metrics.rowsPruned });
    this.rebuildLeftovers = rebuildLeftoversJob({ schema: options.config.schema, em: () => this.em(), pruned: this.metrics.rowsPruned });
  }

  get config(): BaseConfig {
    return this.options.config;
  }

  /** The key ring, or null for a service that keeps no secrets. */
  get secretKeys(): SecretKeyRing | null {
    return this.options.secretKeys ?? null;
  }

  /** A fresh EntityManager (one per request or event, never the global one). */
  em(): EntityManager {
    return this.orm.em.fork();
  }

  async init(): Promise<void> {
    const c = this.options.config;
    if (c.migrateOnly) {
      // Postgres only: no Kafka (topics come from elsewhere, e.g. Strimzi KafkaTopic resources).
      await this.migrate();
      await this.orm.close(true);
      throw new MigrateOnlyComplete(c.serviceName);
    }
    this.kafka = createKafka(`${c.serviceName}-${c.instanceId}`, c.kafkaBrokers, {}, c.kafkaSecurity);
    this.kafkaHealth = new KafkaHealth(`${c.serviceName}-health-${c.instanceId}`, c.kafkaBrokers, { security: c.kafkaSecurity });
    // Independent round trips: the broker's topics and the database's schema at once. Only the app's
    // own topics: its Kafka user in production may neither see nor create the others.
    const own = new Set(isKafkaApp(c.serviceName) ? kafkaTopicsOf(c.serviceName) : []);
    // The test clock (never in production, so not in the access map) follows topics of its own.
    if (this.clock instanceof TestClock) for (const topic of testClockTopics()) own.add(topic);
    await Promise.all([
      ensureTopics(
        this.kafka,
        allTopicSpecs().filter((spec) => own.has(spec.name)),
      ),
      this.migrate(),
    ]);
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: KeyHashPartitioner, allowAutoTopicCreation: false });
    await this.producer.connect();
    this.kafkaUp = true;
    this.producer.on(this.producer.events.DISCONNECT, () => (this.kafkaUp = false));
    this.producer.on(this.producer.events.CONNECT, () => (this.kafkaUp = true));
    if (this.options.publish !== false) await this.startRelay();
    this.startLagPoller();
    this.inboxRetention.start(10 * 60 * 1000, this.clock);
    this.rebuildLeftovers.start(60 * 60 * 1000, this.clock);
    if (this.clock instanceof TestClock) await this.followTestClock(this.clock);
  }

  /** Consumer lag from the broker every 5 s like the outbox gauges, so a consumer that gets no batches (idle or stuck) shows its true lag. */
  private startLagPoller(): void {
    this.lagPoller = new ConsumerLagPoller({
      kafka: this.kafka,
      onLags: (consumer, lags) => void this.metrics.replaceConsumerLag(consumer, lags),
      onError: (error) => log('warn', 'consumer lag refresh failed', { error: String((error as Error)?.message ?? error) }),
    });
    this.lagPoller.start(5_000);
  }

  /** Reports the lag of a consumer this process runs besides its inbox consumers (the RPC server). */
  trackConsumerLag(source: LagSource): void {
    this.lagPoller?.track(source);
  }

  /** The service's role and schema (admin connection), then its ORM on its own role, migrated. */
  private async migrate(): Promise<void> {
    const c = this.options.config;
    await bootstrapServiceSchema(c.databaseUrl, c.schema, c.serviceDatabasePassword);
    this.orm = await createOrm({ url: c.serviceDatabaseUrl, schema: c.schema, entities: this.options.entities, migrations: this.options.migrations });
    const applied = await runMigrations(this.orm);
    if (applied.length > 0 || c.migrateOnly) log('info', 'migrations applied', { service: c.serviceName, applied });
  }

  private async startRelay(): Promise<void> {
    const c = this.options.config;
    this.relay = new OutboxRelay({
      schema: c.schema,
      databaseUrl: c.serviceDatabaseUrl,
      producer: this.producer,
      route: this.eventStore.route,
      onError: (error) => log(kafkaTroubleLevel(error), 'outbox relay error', { service: c.serviceName, error: String(error) }),
      onPublished: (n) => this.metrics.outboxPublished.inc(n),
      tracer: exportTracer(),
    });
    await this.relay.start();
    // Writers that commit through a PipelinedTransaction wake it directly (EventStore.appendStatements).
    const relay = this.relay;
    this.eventStore.wakeRelayWith(() => relay.wake());
    // Gauges true between scrapes too (not only when /readyz or /metrics asks).
    this.backlogTimer = setInterval(() => void this.outboxBacklog().catch(() => undefined), 5_000);
    this.backlogTimer.unref();
  }

  /** Starts an idempotent consumer; events it applies also wake ProjectionWaiter waiters. */
  async consume(spec: AnyConsumerSpec, fromBeginning = true): Promise<void> {
    const c = this.options.config;
    assertKafkaUses(c.serviceName, [{ kind: 'consumer', name: spec.name, topics: spec.topics }]);
    const name = `${c.serviceName}.${spec.name}`;
    const consumer = new InboxConsumer({
      kafka: this.kafka,
      orm: this.orm,
      schema: c.schema,
      consumerName: name,
      groupId: kafkaNamespace() + (this.options.consumerGroupPrefix ?? '') + name,
      topics: spec.topics,
      ...('pipelined' in spec ? { pipelined: spec.pipelined } : { handlers: byEventType(spec.handlers) }),
      partitionsConcurrently: spec.partitionsConcurrently,
      paceMs: spec.paceMs,
      sessionTimeoutMs: c.kafkaSessionTimeoutMs,
      fromBeginning,
      // Each event is applied in its own log context and span, continuing the trace of its traceparent header.
      runInContext: (event, traceparent, fn) =>
        runWithLogContext(
          { correlationId: event.correlationId ?? undefined, appId: event.appId ?? undefined, eventId: event.eventId },
          async () => {
            const result = await fn();
            // Debug only: a line per event is too much for info on a busy consumer.
            if (logEnabled('debug')) log('debug', 'event handled', { consumer: name, type: event.type });
            return result;
          },
          traceparent ?? null,
          {
            name: `apply ${event.type}`,
            kind: SpanKind.CONSUMER,
            attributes: { 'messaging.system': 'kafka', 'messaging.consumer.group.name': name, 'messaging.message.id': event.eventId },
          },
        ),
      onLag: (topic, partition, lag) => this.metrics.kafkaConsumerLag.set({ consumer: name, topic, partition: String(partition) }, lag),
      now: () => this.clock.nowMs(),
      onStaleRedrive: (event) => {
        this.metrics.staleRedrives.inc({ consumer: name });
        log('warn', 'redriven event older than the inbox window passed over', { consumer: name, eventId: event.eventId, occurredAt: event.occurredAt });
      },
      onApplied: (event) => {
        this.metrics.eventsApplied.inc({ consumer: name, type: event.type });
        this.waiter.notify(event);
      },
      onError: (error, context) => {
        // A consumer that crashed with the broker gone or its coordinator not found yet is rebuilt
        // and carries on once Kafka answers: a warning while that lasts. Only a consumer that keeps
        // failing for RESTARTS_BEFORE_ERROR rebuilds, or an event that fails to apply, is an error.
        const recovering = isRecoveringConsumer(error, context);
        if (!recovering) this.metrics.consumerErrors.inc({ consumer: name });
        log(recovering ? 'warn' : 'error', 'consumer error', { ...context, error: String((error as Error)?.message ?? error) });
      },
    });
    this.handledTypes.set(spec.name, new Set(consumer.types));
    if ('pipelined' in spec && spec.pipelined.dedupedByEffect) this.withoutInbox.add(spec.name);
    await consumer.start();
    this.consumers.push(consumer);
    this.lagPoller?.track(consumer);
  }

  /** Records that a startup phase ended now (module loading counts in the first). */
  startupPhase(name: string): void {
    this.startupPhases[name] = Math.round(performance.now());
  }

  /** The phases recorded so far, for the start's log line: where a slow start spent its time. */
  startupTimings(): Record<string, number> {
    return { ...this.startupPhases };
  }

  /** Counts `isMember` in readiness (the RPC server's membership of its group). */
  trackMembership(isMember: () => boolean): void {
    this.members.push(isMember);
  }

  /** Whether the consumer `spec.name` records the events it applies in the inbox (false: its effect is its own inbox). */
  keepsInbox(consumer: string): boolean {
    return !this.withoutInbox.has(consumer);
  }

  /** Event types the consumer `spec.name` applies (others it skips without an inbox row). */
  handles(consumer: string, type: string): boolean {
    return this.handledTypes.get(consumer)?.has(type) ?? false;
  }

  /** A per-process consumer for caches: every replica sees every event. */
  async broadcastConsumer(name: string, topics: string[], onEvent: (event: DomainEvent) => void | Promise<void>, fromBeginning = false): Promise<void> {
    assertKafkaUses(this.options.config.serviceName, [{ kind: 'broadcast', name, topics }]);
    await this.startBroadcast(name, topics, onEvent, fromBeginning);
  }

  private async startBroadcast(name: string, topics: string[], onEvent: (event: DomainEvent) => void | Promise<void>, fromBeginning: boolean): Promise<void> {
    const c = this.options.config;
    this.broadcast.push(
      await startBroadcastConsumer({
        kafka: this.kafka,
        groupId: `${c.serviceName}.${name}.${c.instanceId}`,
        topics,
        onEvent,
        fromBeginning,
        sessionTimeoutMs: c.kafkaSessionTimeoutMs,
        onError: (error) => log(kafkaTroubleLevel(error), 'broadcast consumer error', { consumer: name, error: String((error as Error)?.message ?? error) }),
      }),
    );
  }

  async outboxBacklog(): Promise<{ count: number; oldestAgeSeconds: number }> {
    const backlog = (await this.relay?.backlog()) ?? { count: 0, oldestAgeSeconds: 0 };
    this.metrics.outboxBacklog.set(backlog.count);
    this.metrics.outboxOldestAge.set(backlog.oldestAgeSeconds);
    return backlog;
  }

  async readiness(): Promise<{ ok: boolean; checks: Record<string, boolean> }> {
    // Each check within its deadline: a probe that hangs would be a probe that fails, later.
    const [postgres, broker] = await Promise.all([
      withDeadline(
        this.em()
          .execute('select 1')
          .then(() => true),
        READINESS_DEADLINE_MS,
      ),
      this.kafkaHealth ? this.kafkaHealth.reachable() : Promise.resolve(false),
    ]);
    const kafka = this.kafkaUp && broker;
    // A consumer out of its group (not joined yet, crashed, cut off) leaves callers waiting on its effects.
    const consumers = this.consumers.every((consumer) => consumer.joined) && this.members.every((isMember) => isMember());
    const checks = { postgres, kafka, consumers };
    return { ok: postgres && kafka && consumers, checks };
  }

  async close(): Promise<void> {
    if (this.backlogTimer) clearInterval(this.backlogTimer);
    this.inboxRetention.stop();
    this.rebuildLeftovers.stop();
    await this.lagPoller?.stop();
    for (const consumer of this.consumers) await consumer.stop();
    for (const consumer of this.broadcast) await consumer.disconnect().catch(() => undefined);
    // Rows committed from here on notify, so another replica's relay takes them.
    this.eventStore.wakeRelayWith(null);
    await this.relay?.stop();
    await this.producer?.disconnect().catch(() => undefined);
    await this.kafkaHealth?.close();
    await this.orm?.close(true).catch(() => undefined);
    await stopTraceExport();
  }

  /**
   * With CLOCK_MODE=test every process follows the offset the admin API publishes on gateway.events.
   * Not in the access map: production refuses CLOCK_MODE=test, so no Kafka user needs it.
   */
  private async followTestClock(clock: TestClock): Promise<void> {
    await this.startBroadcast(
      'test-clock',
      testClockTopics(),
      (event) => {
        if (event.type === 'TestClockAdvanced') clock.setOffset((event.data as { offsetMs: number }).offsetMs);
      },
      true,
    );
  }
}

/** Where the admin API's clock moves are published (gateway.events), which every service on the test clock follows. */
function testClockTopics(): string[] {
  return [TOPICS.gatewayEvents];
}

/**
 * The outbox route, refusing a topic the app may not publish to (libs/contracts kafka-access.ts): the
 * append fails, rather than a row its Kafka user could never publish holding up the outbox. Each
 * topic is checked once.
 */
function publishableRoute(app: string, route: ServiceRuntimeOptions['outboxRoute']): ServiceRuntimeOptions['outboxRoute'] {
  const refusals = new Map<string, string | null>();
  return (event) => {
    const routed = route(event);
    for (const { topic } of routesOf(routed)) {
      let refusal = refusals.get(topic);
      if (refusal === undefined) {
        refusal = kafkaUseRefusal(app, { kind: 'produce', topic });
        refusals.set(topic, refusal);
      }
      if (refusal !== null) throw new Error(refusal);
    }
    return routed;
  };
}

/** Rebuilds of a crashed consumer after which its failure is logged as an error (about 20 s of a broker away). */
const RESTARTS_BEFORE_ERROR = 10;

/** A consumer's crash, rebuild or offset commit failing for a reason a rebuild recovers from (not an event that failed to apply). */
function isRecoveringConsumer(error: unknown, context: Record<string, unknown>): boolean {
  const infrastructure = context.crashed === true || context.committing === true || typeof context.restart === 'number';
  const restarts = typeof context.restart === 'number' ? context.restart : 0;
  return infrastructure && restarts < RESTARTS_BEFORE_ERROR && isTransientKafkaError(error);
}

/**
 * The level of a Kafka client's failure: a warning when it is a moment the client recovers from by
 * itself (the broker restarting, a coordinator moving: isTransientKafkaError), an error otherwise.
 * What does not recover shows in the alerts (the outbox's oldest age, consumer lag, readiness).
 */
export function kafkaTroubleLevel(error: unknown): 'warn' | 'error' {
  return isTransientKafkaError(error) ? 'warn' : 'error';
}
