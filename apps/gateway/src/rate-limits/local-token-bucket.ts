/**
 * A token bucket per key in this replica's memory: `ratePerSecond` refill, `burst` capacity. The
 * shared limiter falls back to it while Postgres cannot be reached (the limit is then per replica).
 */
export class LocalTokenBucket {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {}

  take(key: string, nowMs = Date.now()): { allowed: boolean; remaining: number; retryAfterSeconds: number } {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((nowMs - bucket.updatedAt) / 1000) * this.ratePerSecond);
    bucket.updatedAt = nowMs;
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.forgetFull(nowMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterSeconds: 0 };
    }
    return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerSecond)) };
  }

  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  /** A bucket that has had time to refill is the same as no bucket: many addresses cannot grow the map. */
  private forgetFull(nowMs: number): void {
    const refillMs = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (nowMs - bucket.updatedAt >= refillMs) this.buckets.delete(key);
  }
}
