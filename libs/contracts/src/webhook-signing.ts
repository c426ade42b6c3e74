import { createHmac, createSecretKey } from 'node:crypto';

/**
 * The wire format of a signed webhook delivery (architecture sections 6 and 11), shared by the dispatcher and by
 * anything else that must sign exactly as a delivery is signed.
 */

/** Prefix of every endpoint signing secret, so apps (and secret scanners) recognise one on sight. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * The `Svc-Signature` value (architecture section 6): `t=<t>,v1=<hex>[,v1=<hex>]`, one v1 per secret in the order
 * given (the new secret first during rotation), no spaces.
 *
 * v1 is the lowercase hex HMAC-SHA256 of `<t>.` followed by the raw body bytes, keyed with the
 * secret string's UTF-8 bytes exactly as the app received it (`whsec_` included, never decoded):
 * the same scheme as Stripe's, so receivers written for `stripe.webhooks.constructEvent` verify it
 * unchanged. The body is hashed as bytes, not re-serialised, because receivers hash what they got.
 */
export function signatureHeader(secrets: readonly string[], timestampSeconds: number, rawBody: Buffer | string): string {
  checkArguments('signatureHeader', secrets, timestampSeconds);
  const body = bytesOf(rawBody);
  const prefix = Buffer.from(`${timestampSeconds}.`, 'utf8');
  // A string key is its UTF-8 bytes. Keys go to createHmac as strings or KeyObjects, never Buffers: on
  // Node 24 a Buffer key costs about five times the whole HMAC of a webhook body (ADR 0148).
  const signatures = secrets.map((secret) => `v1=${createHmac('sha256', secret).update(prefix).update(body).digest('hex')}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

/**
 * The `webhook-signature` value of the Standard Webhooks specification (architecture section 11):
 * `v1,<base64>[ v1,<base64>]`, one per secret in the order given (new first during rotation).
 *
 * Each is the base64 HMAC-SHA256 of `<eventId>.<t>.` followed by the raw body bytes, keyed with the
 * base64 decoding of the secret after `whsec_`, as that specification (and its `standardwebhooks`
 * libraries) keys it. The same secret string thus verifies under both schemes.
 */
export function standardWebhookSignature(secrets: readonly string[], eventId: string, timestampSeconds: number, rawBody: Buffer | string): string {
  checkArguments('standardWebhookSignature', secrets, timestampSeconds);
  // It is sent as the webhook-id header, which receivers read back to verify.
  if (!/^[\x21-\x7e]+$/.test(eventId))
    throw new Error(`standardWebhookSignature: event id must be printable ASCII without spaces, got ${JSON.stringify(eventId)}`);
  const body = bytesOf(rawBody);
  const prefix = Buffer.from(`${eventId}.${timestampSeconds}.`, 'utf8');
  const sign = (secret: string) =>
    createHmac('sha256', createSecretKey(standardWebhookKey(secret)))
      .update(prefix)
      .update(body)
      .digest('base64');
  return secrets.map((secret) => `v1,${sign(secret)}`).join(' ');
}

/** Every signed header of one delivery attempt, both schemes signed at the same `timestampSeconds`. */
export function webhookDeliveryHeaders(args: {
  secrets: readonly string[];
  timestampSeconds: number;
  body: Buffer | string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
}): Record<string, string> {
  const body = bytesOf(args.body);
  return {
    'Svc-Signature': signatureHeader(args.secrets, args.timestampSeconds, body),
    'Svc-Event-Id': args.eventId,
    'Svc-Event-Type': args.eventType,
    'Svc-Delivery-Id': args.deliveryId,
    'Svc-Delivery-Attempt': String(args.attempt),
    'webhook-id': args.eventId,
    'webhook-timestamp': String(args.timestampSeconds),
    'webhook-signature': standardWebhookSignature(args.secrets, args.eventId, args.timestampSeconds, body),
  };
}

/**
 * The key Standard Webhooks derives from a secret. Only canonical base64 is accepted: Node's decoder
 * silently skips bad characters, so a lenient decode would sign with a key no receiver's library
 * derives. Base62 secrets (what newWebhookSecret makes) are base64 already: 32 characters, 24 bytes.
 */
function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0 || key.toString('base64') !== encoded) {
    throw new Error('standardWebhookSignature: the secret after whsec_ must be non-empty canonical base64');
  }
  return key;
}

function checkArguments(name: string, secrets: readonly string[], timestampSeconds: number): void {
  if (secrets.length === 0) throw new Error(`${name}: at least one secret is needed`);
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`${name}: timestamp must be whole non-negative Unix seconds, got ${timestampSeconds}`);
  }
}

function bytesOf(rawBody: Buffer | string): Buffer {
  return typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
}
