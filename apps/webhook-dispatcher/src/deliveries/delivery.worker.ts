import { SpanKind } from '@opentelemetry/api';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Counter } from 'prom-client';
import { Pool } from 'pg';
import { handlePoolErrors, PgListener } from '#platform/postgres';
import { log, runWithLogContext, ServiceRuntime } from '#platform/service-kit';
import { openCredential } from '../endpoints/endpoint-credentials';
import { WebhookNetwork } from '../network/webhook-network';
import { attemptDelivery, type AttemptReport, type ClaimedDelivery } from './delivery-attempt';
import { CLAIM_SESSION_OPTIONS, CLAIM_SQL, type ClaimRow } from './delivery-claim.sql';
import { recordResults } from './delivery-results';
import { DELIVERIES_CHANNEL } from './delivery.records';
import { disableLongFailing } from './endpoint-health';

/** How long recording waits for more attempts to finish before it writes their results together. */
const FLUSH_GATHER_MS = 10;

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
  /** The last claim was held back by maxInFlight: finished attempts make room, so a flush claims again. */
  private short = false;
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
    this.attemptsTotal = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers: [runtime.metrics.registry],
    });
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
        this.short = room <= 0 || (room < 200 && claimed >= room);
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
        log('error', 'delivery secret could not be opened', {
          deliveryId: row.delivery_id,
          endpointId: row.endpoint_id,
          error: String((error as Error).message),
        });
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
              log('info', 'webhook attempt', {
                attempt: delivery.attempt,
                eventType: delivery.eventType,
                outcome: r ? (r.kind === 'response' ? `status_${r.status}` : r.kind) : 'abandoned',
              });
            })
            .catch((error) => log('error', 'delivery attempt crashed', { error: String(error) })),
        row.traceparent ?? null,
        {
          name: 'webhook attempt',
          kind: SpanKind.CLIENT,
          attributes: { 'webhook.delivery_id': delivery.deliveryId, 'webhook.event_type': delivery.eventType, 'webhook.attempt': delivery.attempt },
        },
      ).finally(() => {
        this.inFlight--;
        void this.flush();
      });
    }
    return rows.length;
  }

  /**
   * Records every finished attempt in one transaction; runs one at a time, batching whatever finished
   * meanwhile, and first waits FLUSH_GATHER_MS so that attempts finishing one by one (a trickle of
   * deliveries) share a transaction instead of taking one each.
   */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.finished.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      if (this.running) await new Promise((resolve) => setTimeout(resolve, FLUSH_GATHER_MS));
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
      // Only a claim held back by maxInFlight has anything to gain from the room made: otherwise
      // every flush cost a claim that found nothing.
      if (this.short) this.kick();
    });
    return this.flushing;
  }

  /** The results in one transaction, then D25 for the endpoints they show failing. */
  private async record(reports: AttemptReport[]): Promise<void> {
    const failing = await recordResults(this.pool, this.attemptsTotal, reports);
    await disableLongFailing(this.runtime, failing, reports);
  }
}
