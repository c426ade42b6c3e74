/**
 * The headers of a webhook delivery (DESIGN sections 6 and 11), for `platformctl listen`'s
 * forwarded requests. Stand-in with the signature of `webhookDeliveryHeaders` in
 * libs/contracts/src/webhook-signing.ts (the dispatcher's shared signer); this plain-JS CLI cannot
 * import TypeScript, so it keeps this copy until it can use the built one.
 *
 * Svc-Signature: `t=<t>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one v1 per secret, keyed with the
 * secret string's UTF-8 bytes as given (`whsec_` included): Stripe's scheme.
 * webhook-signature (Standard Webhooks): `v1,<base64 HMAC-SHA256 of "<id>.<t>.<body>">`, one per
 * secret, space-separated, keyed with the base64 decoding of the secret after `whsec_`.
 */
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/**
 * @param {{ secrets: readonly string[], timestampSeconds: number, body: Buffer | string, eventId: string, eventType: string, deliveryId: string, attempt: number }} args
 * @returns {Record<string, string>}
 */
export function webhookDeliveryHeaders({ secrets, timestampSeconds, body, eventId, eventType, deliveryId, attempt }) {
  if (secrets.length === 0) throw new Error('webhookDeliveryHeaders: at least one secret is needed');
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new Error(`webhookDeliveryHeaders: timestamp must be whole Unix seconds, got ${timestampSeconds}`);
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const stripeStyle = secrets.map((secret) => `v1=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.`).update(bytes).digest('hex')}`);
  const standard = secrets.map((secret) => {
    const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(`${eventId}.${timestampSeconds}.`).update(bytes).digest('base64')}`;
  });
  return {
    'Svc-Signature': [`t=${timestampSeconds}`, ...stripeStyle].join(','),
    'Svc-Event-Id': eventId,
    'Svc-Event-Type': eventType,
    'Svc-Delivery-Id': deliveryId,
    'Svc-Delivery-Attempt': String(attempt),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': standard.join(' '),
  };
}
