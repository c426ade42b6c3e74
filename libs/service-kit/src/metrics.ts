import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  readonly kafkaConsumerLag: Gauge<'consumer' | 'topic' | 'partition'>;

  constructor(serviceName: string) {
    this.registry.setDefaultLabels({ service: serviceName });
    collectDefaultMetrics({ register: this.registry });
    this.httpDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [this.registry],
    });
    this.outboxBacklog = new Gauge({ name: 'outbox_backlog_rows', help: 'Outbox rows not yet published', registers: [this.registry] });
    this.outboxOldestAge = new Gauge({ name: 'outbox_oldest_age_seconds', help: 'Age of the oldest unpublished outbox row', registers: [this.registry] });
    this.outboxPublished = new Counter({ name: 'outbox_published_total', help: 'Outbox rows published to Kafka', registers: [this.registry] });
    this.consumerErrors = new Counter({ name: 'consumer_errors_total', help: 'Errors while applying events', labelNames: ['consumer'], registers: [this.registry] });
    this.idempotencyReplays = new Counter({ name: 'idempotency_replays_total', help: 'Answers replayed for a repeated Idempotency-Key', registers: [this.registry] });
    this.kafkaConsumerLag = new Gauge({
      name: 'kafka_consumer_lag',
      help: 'Messages behind the partition end, as of the last batch a consumer handled',
      labelNames: ['consumer', 'topic', 'partition'],
      registers: [this.registry],
    });
    this.eventsApplied = new Counter({ name: 'consumer_events_applied_total', help: 'Events applied by consumers', labelNames: ['consumer', 'type'], registers: [this.registry] });
  }
}
