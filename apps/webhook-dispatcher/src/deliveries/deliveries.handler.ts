import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ID_PREFIX,
  newId,
  type ListDeliveriesCall,
  type WebhookDelivery,
  type WebhookDeliveryDetail,
  type WebhookDeliveryPage,
  type WebhookEndpointState,
} from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { runStatement } from '#platform/postgres';
import { RpcDispatcher } from '#platform/kafka';
import { isoTime, ServiceRuntime } from '#platform/service-kit';
import {
  deliveryAttemptsStatement,
  eventPayloadStatement,
  listDeliveriesStatement,
  replayEndpointStatement,
  storedEventStatement,
  type AttemptRow,
  type EndpointStateRow,
  type PayloadRow,
  type StoredEventRow,
} from './deliveries.sql';
import { decideDelivery, type DeliveryCommand } from './delivery.decider';
import { createDeliveries, deliveryState, findDelivery, publicDelivery, type DeliveryRow } from './delivery.records';

const encodeCursor = (deliveryId: string) => Buffer.from(deliveryId, 'utf8').toString('base64url');
function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!/^wd_[0-9A-Z]{26}$/.test(id)) throw DomainError.invalid([{ field: 'cursor', issue: 'is not a cursor from a previous page' }]);
  return id;
}

/**
 * GET /webhook-deliveries (D23: newest first; delivery ids sort by creation time, so the cursor is
 * the last id seen) and replay (D24). Payloads are dropped 7 days after their event (DeliveryRetentionPruner).
 */
@Injectable()
export class DeliveriesHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'deliveries.list': (p) => this.list(p),
      'deliveries.replay': (p) => this.replay(String(p.appId), String(p.deliveryId)),
      'deliveries.attempts': (p) => this.attempts(String(p.appId), String(p.deliveryId)),
    });
  }

  async list(q: ListDeliveriesCall): Promise<WebhookDeliveryPage> {
    const rows = await runStatement<DeliveryRow>(this.runtime.em(), listDeliveriesStatement(q, q.cursor ? decodeCursor(q.cursor) : null));
    const page = rows.slice(0, q.limit);
    return { data: page.map(publicDelivery), nextCursor: rows.length > q.limit ? encodeCursor(page[page.length - 1].delivery_id) : null };
  }

  /** D24, decided by the delivery decider on the delivery, its stored event and its endpoint; the handler inserts the delivery it decides. */
  async replay(appId: string, deliveryId: string): Promise<WebhookDelivery> {
    const now = this.runtime.clock.now();
    const replayId = await this.runtime.em().transactional(async (tx) => {
      const original = await findDelivery(tx, appId, deliveryId);
      const command: DeliveryCommand = {
        type: 'ReplayDelivery',
        data: { replayId: newId(ID_PREFIX.webhookDelivery, now.getTime()), ...(await replayFacts(tx, original)) },
        metadata: { now },
      };
      const [created] = decideDelivery(command, deliveryState(original));
      if (!original || created?.type !== 'DeliveryCreated' || created.data.replayOf === null) throw new Error('a replay decides one new delivery');
      await createDeliveries(tx, {
        appId,
        eventId: created.data.eventId,
        type: created.data.eventType,
        endpointIds: [created.data.endpointId],
        now,
        // A replay delivers the same event again: it belongs to the trace that caused the event.
        traceparent: original.traceparent,
        replay: { deliveryId: created.data.deliveryId, of: created.data.replayOf },
      });
      return created.data.deliveryId;
    });
    return publicDelivery((await findDelivery(this.runtime.em(), appId, replayId)) as DeliveryRow);
  }

  /** A delivery with its body and attempts, for the console's delivery detail; another app's delivery is not found. */
  async attempts(appId: string, deliveryId: string): Promise<WebhookDeliveryDetail> {
    const em = this.runtime.em();
    const delivery = await findDelivery(em, appId, deliveryId);
    if (!delivery) throw new DomainError('not_found', 'No such webhook delivery.');
    const [stored] = await runStatement<PayloadRow>(em, eventPayloadStatement(delivery.event_id));
    const rows = await runStatement<AttemptRow>(em, deliveryAttemptsStatement(deliveryId));
    return {
      delivery: publicDelivery(delivery),
      payload: stored?.payload ?? null,
      attempts: rows.map((r) => ({
        attempt: r.attempt,
        startedAt: new Date(r.started_at).toISOString(),
        finishedAt: new Date(r.finished_at).toISOString(),
        durationMs: r.duration_ms,
        outcome: r.outcome,
        responseStatus: r.response_status,
        error: r.error,
        requestHeaders: r.request_headers,
        responseExcerpt: r.response_excerpt,
      })),
    };
  }
}

/** What a replay is decided on besides the delivery: its stored event and its endpoint's state (locked, see replayEndpointStatement). */
async function replayFacts(
  tx: EntityManager,
  original: DeliveryRow | null,
): Promise<{ event: { createdAt: string; payloadKept: boolean } | null; endpointState: WebhookEndpointState | null }> {
  if (!original) return { event: null, endpointState: null };
  const [stored] = await runStatement<StoredEventRow>(tx, storedEventStatement(original.event_id));
  const [locked] = await runStatement<EndpointStateRow>(tx, replayEndpointStatement(original.endpoint_id));
  return {
    event: stored ? { createdAt: isoTime(stored.created_at), payloadKept: stored.payload_kept } : null,
    endpointState: locked?.state ?? null,
  };
}
