import type { PublicEventType, WebhookEndpoint, WebhookEndpointState } from '#platform/contracts';
import { isoTime, isoTimeOrNull, type DbTimestamp } from '#platform/service-kit';

export interface EndpointRow {
  endpoint_id: string;
  app_id: string;
  url: string;
  events: PublicEventType[];
  state: WebhookEndpointState;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
  verified_at: DbTimestamp | null;
  disabled_at: DbTimestamp | null;
  last_verification_error: string | null;
}

/** The endpoint record (D20); the secret is never part of it. */
export function publicEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.endpoint_id,
    url: row.url,
    events: row.events,
    state: row.state,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    verifiedAt: isoTimeOrNull(row.verified_at),
    disabledAt: isoTimeOrNull(row.disabled_at),
    lastVerificationError: row.last_verification_error,
  };
}

export const ENDPOINT_COLUMNS = 'endpoint_id, app_id, url, events, state, created_at, updated_at, verified_at, disabled_at, last_verification_error';
