import type { SecretKeyRing } from '#platform/service-kit';

/**
 * The stored form of an endpoint's credentials: sealed with the key ring (SecretKeyRing), bound to
 * the endpoint and to what they are, so a value copied to another endpoint does not open there.
 * `secret` and `previous_secret` share one context because rotation moves one into the other in SQL.
 */
export type CredentialKind = 'signing-secret' | 'verify-token';

export function credentialContext(endpointId: string, kind: CredentialKind): string {
  return `webhook_dispatcher.endpoint_credentials:${endpointId}:${kind}`;
}

export function sealCredential(ring: SecretKeyRing, endpointId: string, kind: CredentialKind, plaintext: string): string {
  return ring.seal(plaintext, credentialContext(endpointId, kind));
}

export function openCredential(ring: SecretKeyRing, endpointId: string, kind: CredentialKind, sealed: string): string {
  return ring.open(sealed, credentialContext(endpointId, kind));
}

interface CredentialRow {
  endpoint_id: string;
  verify_token: string;
  secret: string;
  previous_secret: string | null;
}

type Execute = (sql: string, params?: unknown[]) => Promise<unknown[]>;

/**
 * Seals every credential under the active key: plaintext ones (rows written before encryption) and
 * those under an older key. Batched by endpoint id, rows locked as they are read; values already under
 * the active key are left as they are, so running it again changes nothing. Returns the rows changed.
 */
export async function resealCredentials(execute: Execute, ring: SecretKeyRing, batch = 500): Promise<{ scanned: number; resealed: number }> {
  let after = '';
  let scanned = 0;
  let resealed = 0;
  for (;;) {
    const rows = (await execute(
      `select endpoint_id, verify_token, secret, previous_secret from webhook_dispatcher.endpoint_credentials where endpoint_id > ? order by endpoint_id limit ? for update`,
      [after, batch],
    )) as CredentialRow[];
    if (rows.length === 0) return { scanned, resealed };
    for (const row of rows) {
      scanned++;
      const verifyToken = ring.reseal(row.verify_token, credentialContext(row.endpoint_id, 'verify-token'));
      const secret = ring.reseal(row.secret, credentialContext(row.endpoint_id, 'signing-secret'));
      const previous = row.previous_secret === null ? null : ring.reseal(row.previous_secret, credentialContext(row.endpoint_id, 'signing-secret'));
      if (verifyToken === row.verify_token && secret === row.secret && previous === row.previous_secret) continue;
      await execute(`update webhook_dispatcher.endpoint_credentials set verify_token = ?, secret = ?, previous_secret = ? where endpoint_id = ?`, [
        verifyToken,
        secret,
        previous,
        row.endpoint_id,
      ]);
      resealed++;
    }
    after = rows[rows.length - 1].endpoint_id;
  }
}
