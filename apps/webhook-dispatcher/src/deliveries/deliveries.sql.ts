import type { WebhookEndpointState } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';

/** The statements of DeliveriesHandler: a replay's facts. */

/** A row of storedEventStatement. */
export interface StoredEventRow {
  created_at: DbTimestamp;
  payload_kept: boolean;
}

/** D24: the stored event a replay would send again (its payload is dropped 7 days after it). */
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
