/**
 * Token bucket per app (DESIGN section 3, step 4): `ratePerSecond` refill, `burst` capacity.
 * Buckets live in each replica's memory; see docs/decisions.md for why and what it means with
 * several replicas.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  take(key: string, nowMs = Date.now()): { allowed: boolean; remaining: number; retryAfterSeconds: number } {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.updatedAt) / 1000) * this.ratePerSecond);
    bucket.updatedAt = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterSeconds: 0 };
    }
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)) };
  }
}
