import { log, type SecretKeyRing } from '#platform/service-kit';
import { openCredential } from '../endpoints/endpoint-credentials';
import type { ClaimedDelivery } from './delivery-attempt';
import type { ClaimRow } from './delivery-claim.sql';

/**
 * A claimed row as an attempt's input, its stored (sealed) signing secrets opened with the key ring;
 * null when they cannot be opened (a key missing from SECRETS_KEYS): the delivery waits, its lease
 * runs out and it is claimed again, until the key is back.
 */
export function claimedDelivery(row: ClaimRow, ring: SecretKeyRing | null): ClaimedDelivery | null {
  if (!ring) throw new Error('the webhook dispatcher runs with a key ring');
  let secret: string | null;
  let previousSecret: string | null;
  try {
    const open = (value: string | null) => (value === null ? null : openCredential(ring, row.endpoint_id, 'signing-secret', value));
    secret = open(row.secret);
    previousSecret = open(row.previous_secret);
  } catch (error) {
    log('error', 'delivery secret could not be opened', {
      deliveryId: row.delivery_id,
      endpointId: row.endpoint_id,
      error: String((error as Error).message),
    });
    return null;
  }
  return {
    deliveryId: row.delivery_id as string,
    appId: row.app_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempts,
    dueAt: new Date(row.due_at),
    createdAt: new Date(row.created_at).toISOString(),
    payload: row.payload,
    endpointState: row.endpoint_state,
    url: row.url,
    secret,
    previousSecret,
    previousSecretExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at).toISOString() : null,
  };
}
