import type { EntityManager } from '@mikro-orm/postgresql';
import { derivedId, ID_PREFIX, type PublicEventType, type WebhookDelivery, type WebhookDeliveryStatus } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import { isoTime, isoTimeOrNull, type DbTimestamp } from '#platform/service-kit';
import { deliveryDecider } from './delivery.decider';
import type { DeliveryState } from './delivery.state';

/** Channel the delivery worker listens on; a commit that adds due deliveries notifies it. */
export const DELIVERIES_CHANNEL = 'webhook_dispatcher_deliveries';

export interface DeliveryRow {
  delivery_id: string;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: PublicEventType;
  status: WebhookDeliveryStatus;
  attempts: number;
  created_at: DbTimestamp;
  next_attempt_at: DbTimestamp | null;
  last_attempt_at: DbTimestamp | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: DbTimestamp | null;
  failed_at: DbTimestamp | null;
  /** The trace its attempts log in (never shown to the app). */
  traceparent: string | null;
}

export const DELIVERY_COLUMNS =
  'delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at, last_attempt_at, last_response_status, last_error, delivered_at, failed_at, traceparent';

/** A delivery's row as the delivery decider's state (absent when there is no row). */
export function deliveryState(row: DeliveryRow | null): DeliveryState {
  if (!row) return deliveryDecider.initialState();
  return {
    status: row.status,
    delivery: { deliveryId: row.delivery_id, eventId: row.event_id, eventType: row.event_type, endpointId: row.endpoint_id },
    attempts: row.attempts,
    createdAt: isoTime(row.created_at),
    nextAttemptAt: row.status === 'pending' ? isoTimeOrNull(row.next_attempt_at) : null,
  };
}

/** The delivery record (D23). */
export function publicDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.delivery_id,
    eventId: row.event_id,
    eventType: row.event_type,
    subscriptionId: row.endpoint_id,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: isoTimeOrNull(row.last_attempt_at),
    nextAttemptAt: row.status === 'pending' ? isoTimeOrNull(row.next_attempt_at) : null,
    lastResponseStatus: row.last_response_status,
    lastError: row.last_error,
    createdAt: isoTime(row.created_at),
    deliveredAt: isoTimeOrNull(row.delivered_at),
    failedAt: isoTimeOrNull(row.failed_at),
  };
}

export type PublicEventRecord = {
  eventId: string;
  appId: string;
  type: PublicEventType;
  payload: string;
  requiresMedia: string[];
  sourceEventId: string | null;
  now: Date;
};

/** Keeps a public event's exact bytes (for every attempt and replay); a repeat of the same event is a no-op. */
export async function storePublicEvent(em: EntityManager, event: PublicEventRecord): Promise<void> {
  const { sql, params } = publicEventStatement(event);
  await em.execute(sql, params);
}

/** storePublicEvent as a statement (for a PipelinedTransaction). */
export function publicEventStatement(event: PublicEventRecord): Statement {
  return {
    sql: `insert into webhook_dispatcher.public_events (event_id, app_id, type, payload, requires_media, source_event_id, created_at)
          values (?, ?, ?, ?, ?, ?, ?) on conflict (event_id) do nothing`,
    params: [event.eventId, event.appId, event.type, event.payload, `{${event.requiresMedia.join(',')}}`, event.sourceEventId, event.now],
  };
}

export interface NewDeliveries {
  appId: string;
  eventId: string;
  type: PublicEventType;
  endpointIds: string[];
  now: Date;
  traceparent: string | null;
  /** A replay (D24): the new delivery's id, decided with it, and the delivery it replays. */
  replay?: { deliveryId: string; of: string };
}

/**
 * One delivery per endpoint, due at once. Original deliveries get ids derived from (event, endpoint),
 * so seeing the same event again creates nothing (test events are fresh events); a replay has the id it was decided with.
 * `traceparent` is the trace every attempt of these deliveries continues (null: each attempt starts one).
 * Returns the ids of the deliveries created.
 */
export async function createDeliveries(em: EntityManager, args: NewDeliveries): Promise<string[]> {
  const statement = deliveriesStatement(args);
  if (!statement) return [];
  const inserted: { delivery_id: string }[] = await em.execute(statement.sql, statement.params);
  return inserted.map((row) => row.delivery_id);
}

/** createDeliveries as a statement (for a PipelinedTransaction); null when there is no endpoint. */
export function deliveriesStatement(args: NewDeliveries): Statement | null {
  if (args.endpointIds.length === 0) return null;
  if (args.replay && args.endpointIds.length !== 1) throw new Error('a replay goes to the one endpoint of the delivery it replays');
  const values: unknown[] = [];
  const rows = args.endpointIds.map((endpointId) => {
    const deliveryId = args.replay?.deliveryId ?? derivedId(ID_PREFIX.webhookDelivery, args.now.getTime(), `${args.eventId}:${endpointId}`);
    values.push(deliveryId, args.appId, endpointId, args.eventId, args.type, args.now, args.now, args.replay?.of ?? null, args.traceparent);
    return "(?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)";
  });
  // The rows, and (when any is new) the wake-up for the workers, delivered at commit (Postgres
  // sends identical notifications of one transaction once).
  return {
    sql: `with inserted as (
            insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at, replay_of, traceparent)
            values ${rows.join(', ')} on conflict do nothing returning delivery_id)
          select delivery_id, pg_notify(?, '') from inserted`,
    params: [...values, DELIVERIES_CHANNEL],
  };
}

export async function findDelivery(em: EntityManager, appId: string, deliveryId: string): Promise<DeliveryRow | null> {
  const rows: DeliveryRow[] = await em.execute(`select ${DELIVERY_COLUMNS} from webhook_dispatcher.deliveries where delivery_id = ? and app_id = ?`, [
    deliveryId,
    appId,
  ]);
  return rows[0] ?? null;
}
