/*
 * Long: the claim loop, its SQL, the outcome recording and the D25 check still live together; splitting
 * them into one job per file is planned with the deciders' redesign.
 */
import { SpanKind } from '@opentelemetry/api';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Pool } from 'pg';
import { handleCommand, handlePoolErrors, PgListener } from '@platform/event-store';
import { log, runWithLogContext, ServiceRuntime } from '@platform/service-kit';
import { openCredential } from '../endpoints/endpoint-credentials';
import { endpointDecider, failingLongEnoughToDisable } from '../endpoints/endpoint.decider';
import { projectEndpointEvents } from '../endpoints/endpoint.projection';
import { WebhookNetwork } from '../network/webhook-network';
import { attemptDelivery, type AttemptReport, type ClaimedDelivery } from './delivery-attempt';
import { decideDelivery, type DeliveryCommand } from './delivery.decider';
import { DELIVERIES_CHANNEL } from './delivery.records';
import type { DeliveryEvent } from './delivery.state';

/** A claimed delivery is another worker's to retry once its lease (real time) runs out: answer limit, DNS and margin. */
const LEASE_SECONDS = 20;
/** A message.received waits this long at most for media to register its files. */
const MEDIA_WAIT_SECONDS = 60;

const CLAIM_SQL = `
with due as (
  select d.delivery_id
  from webhook_dispatcher.deliveries d
  join webhook_dispatcher.public_events e on e.event_id = d.event_id
  where d.status = 'pending' and d.next_attempt_at <= $1
    and (d.lease_until is null or d.lease_until < clock_timestamp())
    and (cardinality(e.requires_media) = 0
         or e.created_at < $1::timestamptz - interval '${MEDIA_WAIT_SECONDS} seconds'
         or not exists (select 1 from unnest(e.requires_media) as m(id)
                        where not exists (select 1 from webhook_dispatcher.known_media k where k.media_id = m.id)))
  order by d.next_attempt_at
  limit $2
  for update of d skip locked
), claimed as (
  update webhook_dispatcher.deliveries d
  set attempts = d.attempts + 1, lease_until = clock_timestamp() + interval '${LEASE_SECONDS} seconds', last_attempt_at = $1
  from due where d.delivery_id = due.delivery_id
  returning d.delivery_id, d.app_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.created_at, d.traceparent
)
select c.delivery_id, c.app_id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.created_at, c.traceparent,
       e.payload, ep.state as endpoint_state, ep.url, cr.secret, cr.previous_secret, cr.previous_secret_expires_at
from claimed c
join webhook_dispatcher.public_events e on e.event_id = c.event_id
left join webhook_dispatcher.endpoints ep on ep.endpoint_id = c.endpoint_id
left join webhook_dispatcher.endpoint_credentials cr on cr.endpoint_id = c.endpoint_id`;

/**
 * The worker's sessions plan without bitmap scans, so the claim walks `deliveries_due_idx` (pending
 * deliveries by due time) as an index scan. Every delivery that leaves `pending` leaves a dead entry
 * in that partial index until a vacuum. An index scan marks the dead entries it meets as dead in the
 * index (Postgres' kill_prior_tuple), and every later scan, bitmap scans too, skips them; a bitmap
 * scan never marks them, so a claim planned as one visited every delivery finished since the last
 * vacuum, on every claim: 4.9 ms a claim after 20 000 deliveries, and the stack's Postgres at 0.60
 * cores against 0.47-0.51 with index scans at 100 webhooks/s (`bench:webhooks`, where this machine
 * never vacuums). Recording outcomes reads the same index (the pending deliveries among those it
 * updates) and gains the same way.
 */
const CLAIM_SESSION_OPTIONS = '-c enable_bitmapscan=off';

/** Only results of the attempt that holds the delivery count (a stale result after a lease ran out is ignored). */
const RECORD_SQL = `
update webhook_dispatcher.deliveries d
set status = u.status, next_attempt_at = u.next_attempt_at, lease_until = null, last_response_status = u.response_status,
    last_error = u.error, delivered_at = u.delivered_at, failed_at = u.failed_at
from unnest($1::text[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::timestamptz[], $8::timestamptz[])
  as u(delivery_id, attempt, status, next_attempt_at, response_status, error, delivered_at, failed_at)
where d.delivery_id = u.delivery_id and d.status = 'pending' and d.attempts = u.attempt`;

const ATTEMPTS_SQL = `
insert into webhook_dispatcher.delivery_attempts (delivery_id, attempt, started_at, finished_at, outcome, response_status, error, duration_ms)
select * from unnest($1::text[], $2::int[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::int[], $7::text[], $8::int[])
on conflict do nothing`;

const HEALTH_SQL = `
insert into webhook_dispatcher.endpoint_health as h (endpoint_id, failing_since, last_success_at)
select * from unnest($1::text[], $2::timestamptz[], $3::timestamptz[])
on conflict (endpoint_id) do update set
  failing_since = case when excluded.last_success_at is not null then excluded.failing_since else coalesce(h.failing_since, excluded.failing_since) end,
  last_success_at = coalesce(excluded.last_success_at, h.last_success_at)
returning endpoint_id, failing_since`;

interface ClaimRow {
  delivery_id: string;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  created_at: Date;
  traceparent: string | null;
  payload: string | null;
  endpoint_state: string | null;
  url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Delivers due deliveries: claims them with a lease (`FOR UPDATE SKIP LOCKED`, so replicas share
 * the work), runs many attempts at once over kept-alive connections, and records the results in
 * batches, each one decided by the delivery decider. Woken by commits that add deliveries
 * (LISTEN/NOTIFY), by test-clock jumps and by a one-second poll for retries that fell due.
 */
@Injectable()
export class DeliveryWorker implements OnApplicationBootstrap, OnModuleDestroy {
  private pool!: Pool;
  private listener!: PgListener;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private kicked = false;
  private inFlight = 0;
  private readonly finished: AttemptReport[] = [];
  private flushing: Promise<void> | null = null;
  private readonly attemptsTotal: Counter<'outcome'>;
  readonly maxInFlight: number;

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(WebhookNetwork) private readonly network: WebhookNetwork,
  ) {
    this.maxInFlight = Number(runtime.config.env.WEBHOOK_MAX_IN_FLIGHT ?? 256);
    this.attemptsTotal = new Counter({ name: 'webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [runtime.metrics.registry] });
  }

  async onApplicationBootstrap(): Promise<void> {
    const databaseUrl = this.runtime.config.serviceDatabaseUrl;
    this.pool = new Pool({ connectionString: databaseUrl, max: 4, application_name: 'webhook-dispatcher-worker', options: CLAIM_SESSION_OPTIONS });
    handlePoolErrors(this.pool, (error) => log('error', 'delivery worker pool error', { error: String(error) }));
    this.listener = new PgListener({
      databaseUrl,
      channel: DELIVERIES_CHANNEL,
      applicationName: 'webhook-dispatcher-worker-listen',
      onNotify: () => this.kick(),
      onError: (error) => log('error', 'delivery worker listener error', { error: String(error) }),
    });
    await this.listener.start();
    this.runtime.clock.onAdvance(() => this.kick());
    this.running = true;
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.kick();
    await this.loop;
    // Attempts under way finish (each within its answer limit) and are recorded before the pool closes.
    while (this.inFlight > 0 || this.finished.length > 0 || this.flushing) {
      await this.flush();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await this.listener.stop();
    await this.pool.end().catch(() => undefined);
    await this.network.close();
  }

  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.kicked = false;
      let claimed = 0;
      try {
        const room = this.maxInFlight - this.inFlight;
        if (room > 0) claimed = await this.claimAndStart(Math.min(room, 200));
      } catch (error) {
        log('error', 'delivery claim failed', { error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (!this.running) break;
      // A full batch means more may be due: claim again at once (if there is room).
      if (claimed >= 200 && this.inFlight < this.maxInFlight) continue;
      if (!this.kicked) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1000);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** The stored (sealed) signing secrets of a claimed row, opened with the key ring. */
  private openSecrets(row: ClaimRow): { secret: string | null; previousSecret: string | null } {
    const ring = this.runtime.secretKeys;
    if (!ring) throw new Error('the webhook dispatcher runs with a key ring');
    const open = (value: string | null) => (value === null ? null : openCredential(ring, row.endpoint_id, 'signing-secret', value));
    return { secret: open(row.secret), previousSecret: open(row.previous_secret) };
  }

  private async claimAndStart(limit: number): Promise<number> {
    const now = this.runtime.clock.now();
    const { rows } = await this.pool.query<ClaimRow>(CLAIM_SQL, [now, limit]);
    for (const row of rows) {
      let secrets: { secret: string | null; previousSecret: string | null };
      try {
        secrets = this.openSecrets(row);
      } catch (error) {
        // A key missing from SECRETS_KEYS: the delivery waits (its lease runs out and it is claimed again) until the key is back.
        log('error', 'delivery secret could not be opened', { deliveryId: row.delivery_id, endpointId: row.endpoint_id, error: String((error as Error).message) });
        continue;
      }
      const delivery: ClaimedDelivery = {
        deliveryId: row.delivery_id,
        appId: row.app_id,
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        eventType: row.event_type,
        attempt: row.attempts,
        createdAt: new Date(row.created_at).toISOString(),
        payload: row.payload,
        endpointState: row.endpoint_state,
        url: row.url,
        ...secrets,
        previousSecretExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at).toISOString() : null,
      };
      this.inFlight++;
      // Each attempt's lines carry its app, delivery and event, in a span of the trace that created the
      // delivery (a retry hours later too); null, not undefined, so that no stored trace means a new one.
      void runWithLogContext(
        { appId: delivery.appId, deliveryId: delivery.deliveryId, eventId: delivery.eventId },
        () =>
          attemptDelivery(delivery, this.network, this.runtime.clock)
            .then((report) => {
              this.finished.push(report);
              const r = report.result;
              log('info', 'webhook attempt', { attempt: delivery.attempt, eventType: delivery.eventType, outcome: r ? (r.kind === 'response' ? `status_${r.status}` : r.kind) : 'abandoned' });
            })
            .catch((error) => log('error', 'delivery attempt crashed', { error: String(error) })),
        row.traceparent ?? null,
        { name: 'webhook attempt', kind: SpanKind.CLIENT, attributes: { 'webhook.delivery_id': delivery.deliveryId, 'webhook.event_type': delivery.eventType, 'webhook.attempt': delivery.attempt } },
      )
        .finally(() => {
          this.inFlight--;
          void this.flush();
        });
    }
    return rows.length;
  }

  /** Records every finished attempt in one transaction; runs one at a time, batching whatever finished meanwhile. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.finished.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      while (this.finished.length > 0) {
        const batch = this.finished.splice(0, this.finished.length);
        try {
          await this.record(batch);
        } catch (error) {
          // The leases run out and the deliveries are attempted again: nothing is lost, a receiver may see a repeat.
          log('error', 'recording delivery results failed', { error: String(error), count: batch.length });
        }
      }
    })().finally(() => {
      this.flushing = null;
      this.kick();
    });
    return this.flushing;
  }

  private async record(reports: AttemptReport[]): Promise<void> {
    const updates = { id: [] as string[], attempt: [] as number[], status: [] as string[], next: [] as (Date | null)[], response: [] as (number | null)[], error: [] as (string | null)[], delivered: [] as (Date | null)[], failed: [] as (Date | null)[] };
    const attempts = { id: [] as string[], attempt: [] as number[], started: [] as Date[], finished: [] as Date[], outcome: [] as string[], response: [] as (number | null)[], error: [] as (string | null)[], duration: [] as number[] };
    const outcomes: { endpointId: string; at: Date; ok: boolean }[] = [];
    for (const report of reports) {
      const d = report.delivery;
      const command: DeliveryCommand = report.result
        ? { type: 'RecordAttempt', data: { attempt: d.attempt, result: report.result }, metadata: { now: report.finishedAt } }
        : { type: 'AbandonDelivery', data: { reason: report.abandonReason ?? 'abandoned' }, metadata: { now: report.finishedAt } };
      const [event] = decideDelivery(command, { status: 'pending', attempts: d.attempt, createdAt: d.createdAt, nextAttemptAt: null });
      if (!event) continue;
      pushUpdate(updates, d.deliveryId, d.attempt, event);
      if (!report.result) continue;
      const ok = event.type === 'DeliverySucceeded';
      this.attemptsTotal.inc({ outcome: ok ? 'delivered' : report.result.kind === 'response' ? `status_${Math.floor(report.result.status / 100)}xx` : report.result.kind });
      attempts.id.push(d.deliveryId);
      attempts.attempt.push(d.attempt);
      attempts.started.push(report.startedAt);
      attempts.finished.push(report.finishedAt);
      attempts.outcome.push(ok ? 'delivered' : report.result.kind);
      attempts.response.push(report.result.kind === 'response' ? report.result.status : null);
      attempts.error.push(ok ? null : 'error' in event.data ? event.data.error : null);
      attempts.duration.push(report.durationMs);
      outcomes.push({ endpointId: d.endpointId, at: report.finishedAt, ok });
    }
    // Per endpoint, in time order: the last success, and the first failure after it (D25's "failing since").
    const health = new Map<string, { lastSuccess: Date | null; firstFailureAfter: Date | null }>();
    for (const { endpointId, at, ok } of outcomes.sort((a, b) => a.at.getTime() - b.at.getTime())) {
      const h = health.get(endpointId) ?? { lastSuccess: null, firstFailureAfter: null };
      health.set(endpointId, ok ? { lastSuccess: at, firstFailureAfter: null } : { ...h, firstFailureAfter: h.firstFailureAfter ?? at });
    }
    const client = await this.pool.connect();
    let failing: { endpoint_id: string; failing_since: Date }[] = [];
    try {
      await client.query('begin');
      if (updates.id.length > 0) {
        await client.query(RECORD_SQL, [updates.id, updates.attempt, updates.status, updates.next, updates.response, updates.error, updates.delivered, updates.failed]);
      }
      if (attempts.id.length > 0) {
        await client.query(ATTEMPTS_SQL, [attempts.id, attempts.attempt, attempts.started, attempts.finished, attempts.outcome, attempts.response, attempts.error, attempts.duration]);
      }
      if (health.size > 0) {
        const ids = [...health.keys()];
        const result = await client.query<{ endpoint_id: string; failing_since: Date | null }>(HEALTH_SQL, [
          ids,
          ids.map((id) => health.get(id)?.firstFailureAfter ?? null),
          ids.map((id) => health.get(id)?.lastSuccess ?? null),
        ]);
        failing = result.rows.filter((row): row is { endpoint_id: string; failing_since: Date } => row.failing_since !== null);
      }
      await client.query('commit');
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.disableLongFailing(failing, reports);
  }

  /** D25: an endpoint whose deliveries all failed for 3 days is disabled (the decider judges the 3 days). */
  private async disableLongFailing(failing: { endpoint_id: string; failing_since: Date }[], reports: AttemptReport[]): Promise<void> {
    const now = this.runtime.clock.now();
    for (const row of failing) {
      // The decider's own rule, asked first so endpoints not yet due cost no transaction.
      if (!failingLongEnoughToDisable(new Date(row.failing_since), now)) continue;
      const appId = reports.find((r) => r.delivery.endpointId === row.endpoint_id)?.delivery.appId ?? null;
      try {
        await handleCommand({
          em: this.runtime.em(),
          eventStore: this.runtime.eventStore,
          decider: endpointDecider,
          streamId: `endpoint-${row.endpoint_id}`,
          command: { type: 'DisableFailingEndpoint', data: { failingSince: new Date(row.failing_since).toISOString() }, metadata: { now } },
          meta: { now, appId, correlationId: null, causationId: null },
          project: (tx, stored) => projectEndpointEvents(tx, stored),
        });
      } catch (error) {
        log('error', 'disabling a failing endpoint failed', { endpointId: row.endpoint_id, error: String(error) });
      }
    }
  }
}

function pushUpdate(
  u: { id: string[]; attempt: number[]; status: string[]; next: (Date | null)[]; response: (number | null)[]; error: (string | null)[]; delivered: (Date | null)[]; failed: (Date | null)[] },
  deliveryId: string,
  attempt: number,
  event: DeliveryEvent,
): void {
  u.id.push(deliveryId);
  u.attempt.push(attempt);
  switch (event.type) {
    case 'DeliverySucceeded':
      u.status.push('delivered');
      u.next.push(null);
      u.response.push(event.data.responseStatus);
      u.error.push(null);
      u.delivered.push(new Date(event.data.at));
      u.failed.push(null);
      return;
    case 'DeliveryAttemptFailed':
      u.status.push('pending');
      u.next.push(new Date(event.data.nextAttemptAt));
      u.response.push(event.data.responseStatus);
      u.error.push(event.data.error);
      u.delivered.push(null);
      u.failed.push(null);
      return;
    case 'DeliveryFailed':
      u.status.push('failed');
      u.next.push(null);
      u.response.push(event.data.responseStatus);
      u.error.push(event.data.error);
      u.delivered.push(null);
      u.failed.push(new Date(event.data.at));
      return;
    case 'DeliveryCreated':
      throw new Error('a recorded attempt never creates a delivery');
  }
}
