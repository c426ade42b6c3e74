import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PartitionLag } from '#platform/kafka';

/** One Prometheus registry per process, labelled with the service name. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly outboxBacklog: Gauge;
  readonly outboxOldestAge: Gauge;
  readonly outboxPublished: Counter;
  readonly consumerErrors: Counter<'consumer'>;
  readonly eventsApplied: Counter<'consumer' | 'type'>;
  readonly idempotencyReplays: Counter;
  /** The gateway's calls to the services over Kafka, from the request sent to the reply read. */
  readonly rpcClientDuration: Histogram<'target' | 'op' | 'outcome'>;
  /** A service's RPC requests from the caller's produce (the record's timestamp) to the start of their handling. */
  readonly rpcServerWait: Histogram<'op'>;
  /** A service's RPC requests from the start of their handling to the reply. */
  readonly rpcServerDuration: Histogram<'op' | 'outcome'>;
  /** A service's RPC requests answered 429 at once because their app's waiting list was full (ADR 0206). */
  readonly rpcServerRefused: Counter;
  readonly kafkaConsumerLag: Gauge<'consumer' | 'topic' | 'partition'>;
  /** Rows deleted past their retention (inbox, dead letters, a service's own tables), by table. */
  readonly rowsPruned: Counter<'table'>;
  /** Redriven copies of events older than the inbox window, passed over. */
  readonly staleRedrives: Counter<'consumer'>;

  constructor(serviceName: string) {
    this.registry.setDefaultLabels({ service: serviceName });
    // The event-loop delay histogram samples on a timer; at prom-client's default 10 ms that is 100
    // wake-ups a second in every process, busy or idle (about 0.8 % of a core each, seven processes
    // on a two-core machine). Every 100 ms still shows a stalled loop in its percentiles.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.outboxBacklog = new Gauge({
      name: 'outbox_backlog_rows',
      help: 'Events (and queued republish rows) the outbox relay has not yet published',
      registers: [this.registry],
    });
    this.outboxOldestAge = new Gauge({
      name: 'outbox_oldest_age_seconds',
      help: 'Age of the oldest event (or queued row) the outbox relay has not yet published',
      registers: [this.registry],
    });
    this.outboxPublished = new Counter({
      name: 'outbox_published_total',
      help: 'Events (and queued rows) the outbox relay published to Kafka',
      registers: [this.registry],
    });
    this.consumerErrors = new Counter({
      name: 'consumer_errors_total',
      help: 'Errors while applying events',
      labelNames: ['consumer'],
      registers: [this.registry],
    });
    this.idempotencyReplays = new Counter({
      name: 'idempotency_replays_total',
      help: 'Answers replayed for a repeated Idempotency-Key',
      registers: [this.registry],
    });
    const stepBuckets = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
    this.rpcClientDuration = new Histogram({
      name: 'rpc_client_duration_seconds',
      help: 'Calls to a service over Kafka request/reply, by target service, operation and outcome (ok, refused, failed)',
      labelNames: ['target', 'op', 'outcome'],
      buckets: stepBuckets,
      registers: [this.registry],
    });
    this.rpcServerWait = new Histogram({
      name: 'rpc_server_wait_seconds',
      help: 'RPC requests from being produced by the caller (record timestamp, the caller host clock) to the start of their handling: Kafka, the fetch and a free slot',
      labelNames: ['op'],
      buckets: stepBuckets,
      registers: [this.registry],
    });
    this.rpcServerDuration = new Histogram({
      name: 'rpc_server_duration_seconds',
      help: 'RPC requests from the start of their handling to the reply, by operation and outcome (ok, refused, expired)',
      labelNames: ['op', 'outcome'],
      buckets: stepBuckets,
      registers: [this.registry],
    });
    this.rpcServerRefused = new Counter({
      name: 'rpc_server_refused_total',
      help: "RPC requests answered 429 rate_limited without being handled: their app's waiting list for a slot was full",
      registers: [this.registry],
    });
    this.kafkaConsumerLag = new Gauge({
      name: 'kafka_consumer_lag',
      help: 'Messages behind the partition end, per partition assigned to this process (after each batch and every 5 s from committed offsets)',
      labelNames: ['consumer', 'topic', 'partition'],
      registers: [this.registry],
    });
    this.rowsPruned = new Counter({
      name: 'rows_pruned_total',
      help: 'Rows deleted past their retention, by table',
      labelNames: ['table'],
      registers: [this.registry],
    });
    this.staleRedrives = new Counter({
      name: 'consumer_stale_redrives_total',
      help: 'Redriven copies of events older than the inbox window, passed over (the inbox may have forgotten them)',
      labelNames: ['consumer'],
      registers: [this.registry],
    });
    this.eventsApplied = new Counter({
      name: 'consumer_events_applied_total',
      help: 'Events applied by consumers',
      labelNames: ['consumer', 'type'],
      registers: [this.registry],
    });
  }

  /**
   * Sets `consumer`'s lag to exactly `lags`: series of partitions it no longer holds (moved to another
   * replica by a rebalance, or the consumer stopped) are removed rather than left at their last value.
   */
  async replaceConsumerLag(consumer: string, lags: PartitionLag[]): Promise<void> {
    const keep = new Set(lags.map((l) => `${l.topic}:${l.partition}`));
    for (const { labels } of (await this.kafkaConsumerLag.get()).values) {
      if (labels.consumer === consumer && !keep.has(`${labels.topic}:${labels.partition}`)) this.kafkaConsumerLag.remove(labels);
    }
    for (const l of lags) this.kafkaConsumerLag.set({ consumer, topic: l.topic, partition: String(l.partition) }, l.lag);
  }
}
