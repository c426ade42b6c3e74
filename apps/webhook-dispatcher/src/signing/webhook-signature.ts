import { createHmac } from 'node:crypto';
import { randomBase62 } from '@platform/contracts';

/** Prefix of every endpoint signing secret, so apps (and secret scanners) recognise one on sight. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * The `Svc-Signature` value (DESIGN 6): `t=<t>,v1=<hex>[,v1=<hex>]`, one v1 per secret in the order
 * given (the new secret first during rotation), no spaces.
 *
 * v1 is the lowercase hex HMAC-SHA256 of `<t>.` followed by the raw body bytes, keyed with the
 * secret string's UTF-8 bytes exactly as the app received it (`whsec_` included, never decoded):
 * the same scheme as Stripe's, so receivers written for `stripe.webhooks.constructEvent` verify it
 * unchanged. The body is hashed as bytes, not re-serialised, because receivers hash what they got.
 */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, rawBody: Buffer | string): string {
  if (secrets.length === 0) throw new Error('signatureHeader: at least one secret is needed');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`signatureHeader: timestamp must be whole non-negative Unix seconds, got ${timestampSeconds}`);
  }
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const prefix = Buffer.from(`${timestampSeconds}.`, 'utf8');
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(prefix).update(body).digest('hex')}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

/** A new endpoint signing secret: `whsec_` and 32 base62 characters (about 190 bits). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBase62(32);
}
