import type { ServiceRuntime } from '#platform/service-kit';

/** A block of tokens taken from a shared bucket, and what the bucket holds after it. */
export interface RateLease {
  granted: number;
  tokens: number;
}

/** Where the replicas' shared buckets live: Postgres in the service, memory in the unit tests. */
export interface RateBucketStore {
  lease(bucket: string, ratePerSecond: number, burst: number, block: number): Promise<RateLease>;
  /** Forgets buckets of a prefix untouched for `idleSeconds`: long enough to have refilled, so absent is the same. */
  forgetIdle(prefix: string, idleSeconds: number): Promise<void>;
}

export function postgresRateBucketStore(runtime: ServiceRuntime): RateBucketStore {
  return {
    async lease(bucket, ratePerSecond, burst, block) {
      const [row]: { granted: number; tokens: number }[] = await runtime
        .em()
        .execute(`select granted, tokens from gateway.lease_rate_tokens(?, ?, ?, ?)`, [bucket, ratePerSecond, burst, block]);
      return { granted: Number(row.granted), tokens: Number(row.tokens) };
    },
    async forgetIdle(prefix, idleSeconds) {
      await runtime
        .em()
        .execute(`delete from gateway.rate_buckets where updated_at < clock_timestamp() - make_interval(secs => ?) and starts_with(bucket, ?)`, [
          idleSeconds,
          prefix,
        ]);
    },
  };
}
