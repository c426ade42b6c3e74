import { LocalTokenBucket } from './local-token-bucket';

describe('LocalTokenBucket', () => {
  it('allows the burst, then refuses with a Retry-After, then refills at the rate', () => {
    const limiter = new LocalTokenBucket(10, 20);
    const t0 = 1_000_000;
    for (let i = 0; i < 20; i++) expect(limiter.take('app', t0).allowed).toBe(true);
    const refused = limiter.take('app', t0);
    expect(refused).toEqual({ allowed: false, remaining: 0, retryAfterSeconds: 1 });
    expect(limiter.take('app', t0 + 100).allowed).toBe(true);
    expect(limiter.take('app', t0 + 100).allowed).toBe(false);
  });
  it('keeps apps apart and reports what is left', () => {
    const limiter = new LocalTokenBucket(1, 3);
    expect(limiter.take('a', 0).remaining).toBe(2);
    expect(limiter.take('b', 0).remaining).toBe(2);
  });
  it('gives a refunded token back', () => {
    const limiter = new LocalTokenBucket(1, 1);
    expect(limiter.take('a', 0).allowed).toBe(true);
    limiter.refund('a');
    expect(limiter.take('a', 0).allowed).toBe(true);
  });
});
