import { randomBase62, WEBHOOK_SECRET_PREFIX } from '#platform/contracts';

// The wire format (Svc-Signature and the Standard Webhooks headers) lives in @platform/contracts,
// so everything that signs like a delivery signs with the same code.
export { signatureHeader, standardWebhookSignature, WEBHOOK_SECRET_PREFIX, webhookDeliveryHeaders } from '#platform/contracts';

/**
 * A new endpoint signing secret: `whsec_` and 32 base62 characters (about 190 bits). Base62 is a
 * subset of the base64 alphabet and 32 characters need no padding, so the part after `whsec_` is
 * also the canonical base64 of a 24-byte Standard Webhooks key.
 */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBase62(32);
}
