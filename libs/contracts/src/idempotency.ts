/**
 * How long an `Idempotency-Key` is remembered (spec, Limits: 24 hours from the first request).
 * The gateway's records and messaging's own claims of keys both expire after it, and both are
 * deleted once expired.
 */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
