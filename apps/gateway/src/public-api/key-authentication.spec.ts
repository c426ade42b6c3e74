import { IncomingMessage, ServerResponse } from 'node:http';
import { BlockList, Socket } from 'node:net';
import { FixedClock } from '#platform/clock';
import { isDomainError } from '#platform/errors';
import { Registry } from 'prom-client';
import { ApiKeyCache, type ApiKeyRecord, type ApiKeyStore } from '../api-keys/api-key.cache';
import { testApiKey } from '../api-keys/api-key.test-helpers';
import { RateLimiter } from '../rate-limits/rate-limiter';
import type { RateBucketStore } from '../rate-limits/rate-bucket.store';
import { createKeyAuthentication } from './key-authentication';

/** Key reads see the store as it is when they start, and wait until the test answers them. */
class HeldKeyStore implements ApiKeyStore {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly pending: (() => void)[] = [];
  reads = 0;

  findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    this.reads++;
    const found = this.keys.get(keyHash) ?? null;
    return new Promise((resolve) => this.pending.push(() => resolve(found)));
  }

  async recordUse(): Promise<void> {}
}

/** One address's bucket of failed authentications with `left` attempts, never refilled; counts what was taken. */
function failureBucket(left: number) {
  const bucket: RateBucketStore & { tokens: number; taken: number } = {
    tokens: left,
    taken: 0,
    async lease(_bucket, _rate, _burst, block) {
      const granted = Math.min(block, Math.floor(bucket.tokens));
      bucket.tokens -= granted;
      bucket.taken += granted;
      return { granted, tokens: bucket.tokens };
    },
    async forgetIdle() {},
  };
  return bucket;
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup(attemptsLeft: number) {
  const keys = new HeldKeyStore();
  const clock = new FixedClock(new Date('2026-11-27T10:00:00Z'));
  const cache = new ApiKeyCache(keys, clock, new Registry());
  const bucket = failureBucket(attemptsLeft);
  // Leases of one token, as the gateway's failure limit takes them (a twentieth of a rate of 1 a second).
  const authFailures = new RateLimiter(bucket, 'auth', 1, 30, { block: 1, leaseMs: 60_000, now: () => clock.nowMs() });
  const authenticate = createKeyAuthentication({ keys: cache, authFailures, trustedProxies: new BlockList(), clock });
  const { key, record } = testApiKey();
  keys.keys.set(record.keyHash, record);
  const request = () => {
    const req = new IncomingMessage(new Socket());
    req.headers.authorization = `Bearer ${key}`;
    return authenticate(req, new ServerResponse(req)).then(
      (found) => found.id,
      (error: unknown) => (isDomainError(error) ? error.code : String(error)),
    );
  };
  const answerReads = async () => {
    while (keys.pending.length > 0) {
      for (const answer of keys.pending.splice(0)) answer();
      await flush();
    }
  };
  return { keys, cache, bucket, record, request, answerReads };
}

describe('key authentication: one charge per key check in flight', () => {
  it('a burst of a key not yet known valid, from an address with one attempt left, is charged once and every request passes', async () => {
    const { keys, bucket, request, answerReads } = setup(1);
    const answers = Array.from({ length: 50 }, () => request());
    await flush();
    await answerReads();
    expect(await Promise.all(answers)).toEqual(Array(50).fill('key_1'));
    expect(bucket.taken).toBe(1);
    expect(keys.reads).toBe(1);
  });

  it('without an attempt left, the first is refused by the address limit and so is every request waiting on it', async () => {
    const { keys, request, answerReads } = setup(0);
    const answers = Array.from({ length: 5 }, () => request());
    await answerReads();
    expect(await Promise.all(answers)).toEqual(Array(5).fill('rate_limited'));
    expect(keys.reads).toBe(0);
  });

  it('a request that waited on the charged check after the key was revoked does not take its answer', async () => {
    const { keys, cache, record, request, answerReads } = setup(5);
    const first = request();
    await flush();
    expect(keys.pending).toHaveLength(1);
    // Revoked while the first request's read (which found the key valid) is under way.
    keys.keys.set(record.keyHash, { ...record, revokedAt: new Date('2026-11-27T10:00:00Z') });
    cache.evictKey(record.id);
    const later = request();
    await answerReads();
    expect(await first).toBe('key_1');
    expect(await later).toBe('invalid_api_key');
    expect(keys.reads).toBe(2);
  });
});
