import type { PublicEventType, WebhookEndpointState } from '@platform/contracts';

export interface EndpointRow {
  endpoint_id: string;
  app_id: string;
  url: string;
  events: PublicEventType[];
  state: WebhookEndpointState;
  created_at: Date | string;
  updated_at: Date | string;
  verified_at: Date | string | null;
  disabled_at: Date | string | null;
  last_verification_error: string | null;
}

/** The endpoint record (D20); the secret is never part of it. */
export interface PublicEndpoint {
  id: string;
  url: string;
  events: PublicEventType[];
  state: WebhookEndpointState;
  createdAt: string;
  updatedAt: string;
  verifiedAt: string | null;
  disabledAt: string | null;
  lastVerificationError: string | null;
}

const iso = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

export function publicEndpoint(row: EndpointRow): PublicEndpoint {
  return {
    id: row.endpoint_id,
    url: row.url,
    events: row.events,
    state: row.state,
    createdAt: iso(row.created_at) as string,
    updatedAt: iso(row.updated_at) as string,
    verifiedAt: iso(row.verified_at),
    disabledAt: iso(row.disabled_at),
    lastVerificationError: row.last_verification_error,
  };
}

export const ENDPOINT_COLUMNS = 'endpoint_id, app_id, url, events, state, created_at, updated_at, verified_at, disabled_at, last_verification_error';
