/**
 * How long an `Idempotency-Key` is remembered (spec, Limits: 24 hours from the first request).
 * Messaging's claims of keys (the only record of them) expire after it and are then deleted.
 */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
