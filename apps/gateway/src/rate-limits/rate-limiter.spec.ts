import { RateLimiter } from './rate-limiter';
import type { RateBucketStore } from './rate-bucket.store';

/** The shared bucket as gateway.lease_rate_tokens keeps it, on a clock the test moves. */
function memoryStore(clock: { now: number }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const store: RateBucketStore & { leases: number; failing: boolean } = {
    leases: 0,
    failing: false,
    async lease(bucket, rate, burst, block) {
      store.leases++;
      if (store.failing) throw new Error('connection refused');
      const b = buckets.get(bucket) ?? { tokens: burst, at: clock.now };
      const tokens = Math.min(burst, b.tokens + ((clock.now - b.at) / 1000) * rate);
      const granted = Math.max(0, Math.min(block, Math.floor(tokens)));
      buckets.set(bucket, { tokens: tokens - granted, at: clock.now });
      return { granted, tokens: tokens - granted };
    },
    async forgetIdle() {},
  };
  return store;
}

describe('RateLimiter (tokens leased in blocks from a shared bucket)', () => {
  it('three replicas together admit the burst plus the rate, never more, and at most a block each less', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const replicas = [0, 1, 2].map(() => new RateLimiter(store, 'app', 100, 200, { now: () => clock.now }));
    let admitted = 0;
    // 3 seconds, every replica asked 5 times every 10 ms: far more than allowed.
    for (clock.now = 0; clock.now <= 3000; clock.now += 10) {
      for (const replica of replicas) for (let i = 0; i < 5; i++) if ((await replica.take('a1')).allowed) admitted++;
    }
    const allowance = 200 + 100 * 3;
    expect(admitted).toBeLessThanOrEqual(allowance);
    expect(admitted).toBeGreaterThanOrEqual(allowance - 3 * 5);
  });

  it('takes one block per lease, so most requests never reach the store', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const limiter = new RateLimiter(store, 'app', 100, 200, { now: () => clock.now });
    for (let i = 0; i < 200; i++) expect((await limiter.take('a1')).allowed).toBe(true);
    expect(store.leases).toBe(200 / 5);
  });

  it('requests arriving together share one lease', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const limiter = new RateLimiter(store, 'app', 100, 200, { now: () => clock.now });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.take('a1')));
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(store.leases).toBe(1);
  });

  it('once the bucket is empty it refuses in memory, with Retry-After, until a block could have refilled', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const limiter = new RateLimiter(store, 'auth', 1, 3, { now: () => clock.now });
    for (let i = 0; i < 3; i++) expect((await limiter.take('198.51.100.1')).allowed).toBe(true);
    const leases = store.leases;
    for (let i = 0; i < 100; i++) expect(await limiter.take('198.51.100.1')).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(store.leases).toBe(leases + 1);
    clock.now += 1000;
    expect((await limiter.take('198.51.100.1')).allowed).toBe(true);
    expect((await limiter.take('198.51.100.2')).allowed).toBe(true);
  });

  it('reports the lease and the shared bucket as remaining, and takes a refund back', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const limiter = new RateLimiter(store, 'app', 100, 200, { now: () => clock.now });
    expect(await limiter.take('a1')).toEqual({ allowed: true, remaining: 4 + 195, retryAfterSeconds: 0 });
    limiter.refund('a1');
    expect((await limiter.take('a1')).remaining).toBe(4 + 195);
    expect(store.leases).toBe(1);
  });

  it('drops leased tokens unused after the lease time, so idle replicas cannot add to a refilled burst', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    const limiter = new RateLimiter(store, 'app', 100, 200, { now: () => clock.now, leaseMs: 1000 });
    await limiter.take('a1');
    clock.now += 5000;
    let admitted = 0;
    for (let i = 0; i < 300; i++) if ((await limiter.take('a1')).allowed) admitted++;
    expect(admitted).toBe(200);
  });

  it('falls back to a bucket in memory while the store fails, and goes back to the store after', async () => {
    const clock = { now: 0 };
    const store = memoryStore(clock);
    store.failing = true;
    const limiter = new RateLimiter(store, 'app', 1, 2, { now: () => clock.now, fallbackMs: 1000 });
    expect((await limiter.take('a1')).allowed).toBe(true);
    expect((await limiter.take('a1')).allowed).toBe(true);
    expect((await limiter.take('a1')).allowed).toBe(false);
    expect(store.leases).toBe(1);
    store.failing = false;
    clock.now += 1000;
    expect((await limiter.take('a1')).allowed).toBe(true);
    expect(store.leases).toBe(2);
  });
});
