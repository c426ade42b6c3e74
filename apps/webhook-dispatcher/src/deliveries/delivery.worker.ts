import { SpanKind } from '@opentelemetry/api';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { randomInt } from 'node:crypto';
import { Pool } from 'pg';
import { handlePoolErrors, PgListener } from '#platform/postgres';
import { log, runWithLogContext, ServiceRuntime } from '#platform/service-kit';
import { WebhookNetwork } from '../network/webhook-network';
import { attemptDelivery, type AttemptReport, type ClaimedDelivery } from './delivery-attempt';
import { claimedDelivery } from './claimed-delivery';
import { CLAIM_SESSION_OPTIONS, CLAIM_SQL, type ClaimRow } from './delivery-claim.sql';
import { recordResults } from './delivery-results';
import { DELIVERIES_CHANNEL } from './delivery.records';
import { disableLongFailing } from './endpoint-health';
import { EndpointLanes } from './endpoint-lanes';
import { HeldBacklog } from './held-backlog';
import { COUNT_SLOTS } from '../delivery-counts/delivery-counts.rule';

/** How long recording waits for more attempts to finish before it writes their results together. */
const FLUSH_GATHER_MS = 10;
/** Deliveries one claim sends at most, and holds at most. */
const CLAIM_BATCH = 200;
/** Endpoints one claim visits at most (the next claim goes on from there). */
const LANES_PER_CLAIM = 500;
/** Held attempts claimed and not yet recorded, at most (held-backlog.ts). */
const MAX_UNRECORDED_HOLDS = 2 * CLAIM_BATCH;

/**
 * Delivers due deliveries: claims them fairly across endpoints (round robin over endpoint lanes,
 * each lane bounded by its plan: endpoint-lane.decider.ts) with a lease (`SKIP LOCKED`, so replicas
 * share the work), runs many attempts at once over each endpoint's own kept-alive connections,
 * records at once the attempts an open lane holds, and records the results in batches, each one
 * decided by the delivery decider. Woken by commits that add deliveries (LISTEN/NOTIFY), by
 * test-clock jumps, by room made in a full lane, and by a one-second poll for retries that fell due.
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
  private readonly lateness: Histogram<'sent'>;
  readonly maxInFlight: number;
  private readonly lanes: EndpointLanes;
  /** The endpoint after which the next claim starts visiting lanes (round robin across claims). */
  private cursor = '';
  /** A finished attempt made room in a lane that was full: claim again for what waited on it. */
  private laneFreed = false;
  private readonly held = new HeldBacklog(MAX_UNRECORDED_HOLDS, CLAIM_BATCH);
  /** The reports of held attempts, so that their recording makes room in `held`. */
  private readonly heldReports = new WeakSet<AttemptReport>();
  /** The last claim held less than a claim may, for want of room: a recording makes room, so a flush claims again. */
  private holdsWaited = false;
  /** This process's rows of the hourly delivery counts (ADR 0219): replicas rarely share one, so they rarely wait on each other. */
  private readonly countsSlot = randomInt(1, COUNT_SLOTS);

  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(WebhookNetwork) private readonly network: WebhookNetwork,
  ) {
    this.maxInFlight = Number(runtime.config.env.WEBHOOK_MAX_IN_FLIGHT ?? 256);
    // Probes of failing endpoints never take more than half the slots: the rest stay for endpoints that answer.
    this.lanes = new EndpointLanes(network.endpointMaxInFlight, Math.max(1, Math.floor(this.maxInFlight / 2)), CLAIM_BATCH);
    this.attemptsTotal = new Counter({
      name: 'webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers: [runtime.metrics.registry],
    });
    this.lateness = new Histogram({
      name: 'webhook_attempt_lateness_seconds',
      help: 'How long after its due time a delivery attempt started (sent: false for attempts held by a failing endpoint)',
      labelNames: ['sent'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers: [runtime.metrics.registry],
    });
    const lanes = this.lanes;
    new Gauge({
      name: 'webhook_endpoint_lanes_open',
      help: 'Endpoints this replica holds deliveries for, as they keep failing (one probe at a time is sent)',
      registers: [runtime.metrics.registry],
      collect() {
        this.set(lanes.openCount());
      },
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
      this.laneFreed = false;
      let full = false;
      try {
        // Held deliveries need no slot: a claim runs even when every slot is taken.
        const room = Math.max(0, this.maxInFlight - this.inFlight);
        const holdRoom = this.held.room();
        const claimed = await this.claimAndStart(Math.min(room, CLAIM_BATCH), holdRoom);
        this.short = room < CLAIM_BATCH && claimed.sent >= room;
        this.holdsWaited = holdRoom < CLAIM_BATCH && claimed.held >= holdRoom;
        // A full batch means more may be due: claim again at once (if there is room, or to hold).
        full = (claimed.sent >= CLAIM_BATCH && this.inFlight < this.maxInFlight) || (claimed.held >= CLAIM_BATCH && this.held.room() > 0);
      } catch (error) {
        log('error', 'delivery claim failed', { error: String(error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      if (!this.running) break;
      if (full) continue;
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

  private async claimAndStart(limit: number, holdLimit: number): Promise<{ sent: number; held: number }> {
    const now = this.runtime.clock.now();
    const plans = this.lanes.plans(now);
    const { rows } = await this.pool.query<ClaimRow>(CLAIM_SQL, [
      now,
      limit,
      this.cursor,
      LANES_PER_CLAIM,
      this.lanes.maxInFlightPerEndpoint,
      plans.endpointIds,
      plans.attempts,
      plans.holds,
      holdLimit,
    ]);
    let sent = 0;
    let held = 0;
    for (const row of rows) {
      if (row.delivery_id === null) {
        this.cursor = row.next_cursor ?? '';
        continue;
      }
      const delivery = claimedDelivery(row, this.runtime.secretKeys);
      if (!delivery) continue;
      this.lateness.observe({ sent: String(!row.held) }, Math.max(0, now.getTime() - delivery.dueAt!.getTime()) / 1000);
      if (row.held) {
        held++;
        this.hold(delivery);
      } else {
        sent++;
        this.start(delivery, row.traceparent);
      }
    }
    return { sent, held };
  }

  /** An attempt the endpoint's open lane holds: nothing is sent, it is recorded with the next results. */
  private hold(delivery: ClaimedDelivery): void {
    this.held.claimed(1);
    void attemptDelivery(delivery, this.network, this.runtime.clock, this.lanes.holdReason(delivery.endpointId))
      .then((report) => {
        this.heldReports.add(report);
        this.finished.push(report);
        void this.flush();
      })
      .catch((error) => {
        this.held.recorded(1);
        log('error', 'holding a delivery attempt failed', { error: String(error) });
      });
  }

  private start(delivery: ClaimedDelivery, traceparent: string | null): void {
    this.inFlight++;
    const probe = this.lanes.started(delivery.endpointId);
    let result: AttemptReport['result'] = null;
    // Each attempt's lines carry its app, delivery and event, in a span of the trace that created the
    // delivery (a retry hours later too); null, not undefined, so that no stored trace means a new one.
    void runWithLogContext(
      { appId: delivery.appId, deliveryId: delivery.deliveryId, eventId: delivery.eventId },
      () =>
        attemptDelivery(delivery, this.network, this.runtime.clock)
          .then((report) => {
            result = report.result;
            this.finished.push(report);
            const r = report.result;
            log('info', 'webhook attempt', {
              attempt: delivery.attempt,
              eventType: delivery.eventType,
              probe,
              outcome: r ? (r.kind === 'response' ? `status_${r.status}` : r.kind) : 'abandoned',
            });
          })
          .catch((error) => log('error', 'delivery attempt crashed', { error: String(error) })),
      traceparent ?? null,
      {
        name: 'webhook attempt',
        kind: SpanKind.CLIENT,
        attributes: { 'webhook.delivery_id': delivery.deliveryId, 'webhook.event_type': delivery.eventType, 'webhook.attempt': delivery.attempt },
      },
    ).finally(() => {
      this.inFlight--;
      if (this.lanes.finished(delivery.endpointId, probe, result, this.runtime.clock.now())) this.laneFreed = true;
      void this.flush();
    });
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
        this.held.recorded(batch.filter((report) => this.heldReports.delete(report)).length);
      }
    })().finally(() => {
      this.flushing = null;
      // Only a claim held back by maxInFlight, a full lane or the held backlog has anything to gain
      // from the room made: otherwise every flush cost a claim that found nothing.
      if (this.short || this.laneFreed || this.holdsWaited) this.kick();
    });
    return this.flushing;
  }

  /** The results in one transaction, then D25 for the endpoints they show failing. */
  private async record(reports: AttemptReport[]): Promise<void> {
    const failing = await recordResults(this.pool, this.attemptsTotal, reports, this.countsSlot);
    await disableLongFailing(this.runtime, failing, reports);
  }
}
