import { LocalTokenBucket } from './local-token-bucket';
import type { RateBucketStore } from './rate-bucket.store';

export interface RateDecision {
  allowed: boolean;
  /** Whole tokens left: this replica's lease plus the shared bucket as last seen. */
  remaining: number;
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  /** Tokens taken from the shared bucket at once; default a twentieth of the rate (or of the burst). */
  block?: number;
  /** How long leased tokens stay usable here; unused ones are dropped, never returned. */
  leaseMs?: number;
  /** How long to use the in-memory bucket after the shared store failed, before trying it again. */
  fallbackMs?: number;
  maxKeys?: number;
  now?: () => number;
  onLease?: (outcome: 'granted' | 'empty' | 'failed') => void;
}

type Local = { tokens: number; expiresAt: number; shared: number; exhaustedUntil: number; fallbackUntil: number; pending: Promise<void> | null };

/**
 * A token bucket per key (an app, a client address) that holds for every replica together: the
 * bucket lives in Postgres and each replica leases tokens from it in blocks, so most requests are
 * decided in memory and a replica writes once per block. Tokens leased are gone from the shared
 * bucket, so replicas together never admit more than burst + rate × time; the cost is undershoot, at
 * most one block per replica (leased, then dropped unused after `leaseMs`). Once a lease finds the
 * bucket empty, this replica refuses in memory until a block could have refilled. See
 * docs/adr/0038-rate-limits-shared-in-leased-blocks.md.
 */
export class RateLimiter {
  private readonly locals = new Map<string, Local>();
  private readonly fallback: LocalTokenBucket;
  private readonly block: number;
  private readonly leaseMs: number;
  private readonly fallbackMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;

  constructor(
    private readonly store: RateBucketStore,
    /** Prefix of this limiter's buckets in the store: `app`, `auth`. */
    readonly name: string,
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly options: RateLimiterOptions = {},
  ) {
    this.block = Math.max(1, Math.floor(options.block ?? Math.ceil(Math.min(ratePerSecond, burst) / 20)));
    this.leaseMs = options.leaseMs ?? 1000;
    this.fallbackMs = options.fallbackMs ?? 1000;
    this.maxKeys = options.maxKeys ?? 100_000;
    this.now = options.now ?? Date.now;
    this.fallback = new LocalTokenBucket(ratePerSecond, burst, this.maxKeys);
  }

  async take(key: string): Promise<RateDecision> {
    const local = this.local(key);
    for (;;) {
      const now = this.now();
      if (now < local.fallbackUntil) return this.fallback.take(key, now);
      if (local.tokens >= 1 && now < local.expiresAt) {
        local.tokens -= 1;
        return { allowed: true, remaining: Math.floor(local.tokens) + Math.floor(local.shared), retryAfterSeconds: 0 };
      }
      if (now < local.exhaustedUntil) {
        return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil((1 - local.shared) / this.ratePerSecond)) };
      }
      // One lease at a time per key: requests arriving meanwhile share its block.
      local.pending ??= this.lease(key, local).finally(() => (local.pending = null));
      await local.pending;
    }
  }

  /** Gives back a token taken for a request that turned out not to count (a valid key, a replay). */
  refund(key: string): void {
    const local = this.locals.get(key);
    const now = this.now();
    if (local && now < local.fallbackUntil) this.fallback.refund(key);
    else if (local && now < local.expiresAt) local.tokens += 1;
  }

  /** Deletes this limiter's shared buckets that have been idle long enough to be full again. */
  forgetIdle(): Promise<void> {
    return this.store.forgetIdle(`${this.name}:`, Math.ceil(this.burst / this.ratePerSecond) + 60);
  }

  private async lease(key: string, local: Local): Promise<void> {
    try {
      const { granted, tokens } = await this.store.lease(`${this.name}:${key}`, this.ratePerSecond, this.burst, this.block);
      const now = this.now();
      local.tokens = (now < local.expiresAt ? local.tokens : 0) + granted;
      local.expiresAt = now + this.leaseMs;
      local.shared = tokens;
      // Empty: ask again only once a whole block could be there, not once per refilled token.
      if (granted === 0) local.exhaustedUntil = now + Math.ceil(((this.block - tokens) / this.ratePerSecond) * 1000);
      this.options.onLease?.(granted === 0 ? 'empty' : 'granted');
    } catch {
      local.fallbackUntil = this.now() + this.fallbackMs;
      this.options.onLease?.('failed');
    }
  }

  private local(key: string): Local {
    let local = this.locals.get(key);
    if (!local) {
      if (this.locals.size >= this.maxKeys) this.forgetSettled();
      local = { tokens: 0, expiresAt: 0, shared: this.burst, exhaustedUntil: 0, fallbackUntil: 0, pending: null };
      this.locals.set(key, local);
    }
    return local;
  }

  /** Keys whose lease and refusal have both run out hold nothing the next lease would not give. */
  private forgetSettled(): void {
    const now = this.now();
    for (const [key, local] of this.locals) {
      if (!local.pending && now >= local.expiresAt && now >= local.exhaustedUntil && now >= local.fallbackUntil) this.locals.delete(key);
    }
  }
}
