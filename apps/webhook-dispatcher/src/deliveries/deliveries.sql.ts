import type { ListDeliveriesCall, WebhookEndpointState } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';
import { DELIVERY_COLUMNS } from './delivery.records';

/** The statements of DeliveriesHandler: the delivery list, a replay's facts, a delivery's attempts and body, the payload retention. */

/** A page of an app's deliveries, newest first (D23), one more than `limit` to tell whether another page follows; `before`: the last id seen. */
export function listDeliveriesStatement(q: ListDeliveriesCall, before: string | null): Statement {
  const where = ['app_id = ?'];
  const params: unknown[] = [q.appId];
  if (q.status) {
    where.push('status = ?');
    params.push(q.status);
  }
  if (q.subscriptionId) {
    where.push('endpoint_id = ?');
    params.push(q.subscriptionId);
  }
  if (before !== null) {
    where.push('delivery_id < ?');
    params.push(before);
  }
  return {
    sql: `select ${DELIVERY_COLUMNS} from webhook_dispatcher.deliveries where ${where.join(' and ')} order by delivery_id desc limit ?`,
    params: [...params, q.limit + 1],
  };
}

/** A row of storedEventStatement. */
export interface StoredEventRow {
  created_at: DbTimestamp;
  payload_kept: boolean;
}

/** D24: the stored event a replay would send again (a replay is refused 7 days after it). */
export function storedEventStatement(eventId: string): Statement {
  return { sql: `select created_at, payload is not null as payload_kept from webhook_dispatcher.public_events where event_id = ?`, params: [eventId] };
}

/** A row of replayEndpointStatement. */
export interface EndpointStateRow {
  state: WebhookEndpointState;
}

/** D24: the state of the endpoint a replay goes to, shared-locked to the commit so that it is not disabled or deleted meanwhile. */
export function replayEndpointStatement(endpointId: string): Statement {
  return { sql: `select state from webhook_dispatcher.endpoints where endpoint_id = ? for share`, params: [endpointId] };
}

/** A row of deliveryAttemptsStatement. */
export interface AttemptRow {
  attempt: number;
  started_at: DbTimestamp;
  finished_at: DbTimestamp;
  duration_ms: number;
  outcome: string;
  response_status: number | null;
  error: string | null;
  /** The request's headers as sent (ADR 0220); null when none was made or past 7 days. */
  request_headers: { name: string; value: string }[] | null;
  response_excerpt: string | null;
}

/** A delivery's attempts, in order, for the console's log. */
export function deliveryAttemptsStatement(deliveryId: string): Statement {
  return {
    sql: `select attempt, started_at, finished_at, duration_ms, outcome, response_status, error, request_headers, response_excerpt
          from webhook_dispatcher.delivery_attempts where delivery_id = ? order by attempt`,
    params: [deliveryId],
  };
}

/** A row of eventPayloadStatement. */
export interface PayloadRow {
  payload: string | null;
}

/** The exact body a delivery of the event sends (kept with the event, WEBHOOKS.eventRetentionMs; null in rows of before ADR 0223 past 7 days). */
export function eventPayloadStatement(eventId: string): Statement {
  return { sql: `select payload from webhook_dispatcher.public_events where event_id = ?`, params: [eventId] };
}

/** Drops the request headers and response excerpts of attempts started before `cutoff` (7 days, ADR 0220). */
export function dropAttemptExchangesStatement(cutoff: Date): Statement {
  return {
    sql: `update webhook_dispatcher.delivery_attempts set request_headers = null, response_excerpt = null
          where (request_headers is not null or response_excerpt is not null) and started_at < ?`,
    params: [cutoff],
  };
}
