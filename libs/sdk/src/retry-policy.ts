/**
 * When a failed attempt is tried again, and after how long. Pure: the request sender feeds it what
 * happened; tests feed it directly.
 *
 * The rule, after Stripe's: retry only when doing it again cannot duplicate an effect. Stripe gets
 * there by putting an idempotency key on every POST; this API takes keys on POST /messages only, so:
 * - "idempotent" requests (GET, PUT, PATCH, DELETE, POST /messages with its key, re-verifying an
 *   endpoint) are retried on network errors, timeouts, 5xx, 429 `rate_limited` and 409
 *   `idempotency_in_progress` (the first attempt of that send is still running);
 * - other POSTs (create media, opt-in links and endpoints, test, rotate a secret, replay) are
 *   retried only when the API provably did nothing: 429 `rate_limited` (refused before any work) or
 *   a connection that failed before the request was sent. A 5xx or a cut connection may hide a
 *   created endpoint or a rotated secret, so those surface as errors for the caller to check.
 * - other 4xx are never retried, nor quota 429s (`daily_quota_exceeded`, `business_initiated_cap`,
 *   `media_rate_limited`): they last hours, not seconds.
 */

/** How retries are paced. */
export interface RetrySettings {
  /** Retries after the first attempt (0 disables retrying). */
  maxRetries: number;
  /** The first backoff; each retry doubles it. */
  initialDelayMs: number;
  /** The backoff never exceeds this. */
  maxDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the error surfaces instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_SETTINGS: RetrySettings = { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/** What one attempt ended with. */
export type AttemptOutcome =
  { kind: 'response'; status: number; code: string | undefined; retryAfter: string | null } | { kind: 'network'; error: unknown } | { kind: 'timeout' };

/** Error codes of failures that happen before any byte of the request left this machine. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** True when a fetch failure proves the request never reached the server (undici nests the cause). */
export function failedBeforeSending(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** `Retry-After` as milliseconds (delta-seconds; an HTTP date is also read), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

/** Exponential backoff with jitter in [half, full] of the step, never below the initial delay (Stripe's curve). */
export function backoffDelayMs(retryNumber: number, settings: RetrySettings, random: () => number): number {
  const step = Math.min(settings.initialDelayMs * 2 ** (retryNumber - 1), settings.maxDelayMs);
  return Math.max(settings.initialDelayMs, Math.round(step * 0.5 * (1 + random())));
}

/**
 * How long to wait before retry number `retriesSoFar + 1`, or null to give up and surface the
 * failure. `idempotent` says whether repeating the request is harmless (see the file comment).
 */
export function retryDelay(
  outcome: AttemptOutcome,
  context: { retriesSoFar: number; idempotent: boolean; settings: RetrySettings; random: () => number; nowMs: number },
): number | null {
  const { retriesSoFar, idempotent, settings } = context;
  if (retriesSoFar >= settings.maxRetries) return null;
  const backoff = () => backoffDelayMs(retriesSoFar + 1, settings, context.random);
  switch (outcome.kind) {
    case 'timeout':
      return idempotent ? backoff() : null;
    case 'network':
      return idempotent || failedBeforeSending(outcome.error) ? backoff() : null;
    case 'response': {
      const retryable =
        // A 429 without the envelope (a proxy's) is treated like rate_limited.
        (outcome.status === 429 && (outcome.code === 'rate_limited' || outcome.code === undefined)) ||
        (idempotent && (outcome.status >= 500 || (outcome.status === 409 && outcome.code === 'idempotency_in_progress')));
      if (!retryable) return null;
      const retryAfter = parseRetryAfter(outcome.retryAfter, context.nowMs);
      if (retryAfter === null) return backoff();
      return retryAfter > settings.maxRetryAfterMs ? null : retryAfter;
    }
  }
}
