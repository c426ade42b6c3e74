import { FixedClock } from '#platform/clock';
import { Registry } from 'prom-client';
import { ApiKeyCache, type ApiKeyRecord, type ApiKeyStore } from './api-key.cache';
import { generateApiKey } from './api-key-format';
import { testApiKey } from './api-key.test-helpers';

/** A store whose reads wait until the test answers them, so a test can act while a query is under way. */
class HeldStore implements ApiKeyStore {
  readonly keys = new Map<string, ApiKeyRecord>();
  readonly pending: Array<{ keyHash: string; answer: () => void }> = [];

  findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    // The answer is what the store holds when the test lets the read finish.
    return new Promise((resolve) => this.pending.push({ keyHash, answer: () => resolve(this.keys.get(keyHash) ?? null) }));
  }

  async recordUse(): Promise<void> {}

  /** Answers every read under way, then lets the cache's own continuations run. */
  async answerAll(): Promise<void> {
    for (const read of this.pending.splice(0)) read.answer();
    await flush();
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function setup() {
  const store = new HeldStore();
  const cache = new ApiKeyCache(store, new FixedClock(new Date('2026-11-23T10:00:00Z')), new Registry());
  const { key, record } = testApiKey();
  return { store, cache, key, record };
}

describe('ApiKeyCache', () => {
  it('requests arriving while a key is being read share that one read, and later ones are answered from memory', async () => {
    const { store, cache, key, record } = setup();
    store.keys.set(record.keyHash, record);
    const answers = Array.from({ length: 30 }, () => cache.lookup(key));
    await flush();
    expect(store.pending).toHaveLength(1);
    await store.answerAll();
    expect(await Promise.all(answers)).toEqual(Array(30).fill(record));
    expect(await cache.lookup(key)).toEqual(record);
    expect(store.pending).toHaveLength(0);
  });

  it('an answer read before a revocation is returned to the request that asked before it, but not remembered', async () => {
    const { store, cache, key, record } = setup();
    const answers: ApiKeyRecord[] = [];
    store.findByHash = (keyHash) => new Promise((resolve) => store.pending.push({ keyHash, answer: () => resolve(answers.shift() ?? null) }));
    answers.push(record);
    const before = cache.lookup(key);
    await flush();
    cache.evictKey(record.id);
    const after = cache.lookup(key);
    await store.answerAll();
    expect(await before).toEqual(record);
    // The request that came after the revocation waited for the stale read, then read again.
    const revoked = { ...record, revokedAt: new Date('2026-11-23T10:00:01Z') };
    answers.push(revoked);
    expect(store.pending).toHaveLength(1);
    await store.answerAll();
    expect(await after).toEqual(revoked);
    // Nothing stale stays in memory: the next request is answered with the revoked key, from memory.
    expect(await cache.lookup(key)).toEqual(revoked);
    expect(store.pending).toHaveLength(0);
  });

  it('an answer read before a revocation is not remembered: the next request reads again', async () => {
    const { store, cache, key, record } = setup();
    store.keys.set(record.keyHash, record);
    const before = cache.lookup(key);
    await flush();
    cache.evictKey(record.id);
    await store.answerAll();
    expect(await before).toEqual(record);
    const revoked = { ...record, revokedAt: new Date('2026-11-23T10:00:01Z') };
    store.keys.set(record.keyHash, revoked);
    const next = cache.lookup(key);
    await flush();
    expect(store.pending).toHaveLength(1);
    await store.answerAll();
    expect(await next).toEqual(revoked);
  });

  it('a request arriving after a new key was created does not take the miss of a read that started before it', async () => {
    const { store, cache, key, record } = setup();
    const before = cache.lookup(key);
    await flush();
    const staleMiss = store.pending.splice(0)[0];
    store.keys.set(record.keyHash, record);
    cache.forgetMisses();
    const after = cache.lookup(key);
    // The first read answers as the store was when it ran: no such key.
    store.keys.delete(record.keyHash);
    staleMiss.answer();
    store.keys.set(record.keyHash, record);
    await flush();
    expect(await before).toBeNull();
    expect(store.pending).toHaveLength(1);
    await store.answerAll();
    expect(await after).toEqual(record);
  });

  it('a new key created while a key that exists is being read does not make the waiting requests read again', async () => {
    const { store, cache, key, record } = setup();
    store.keys.set(record.keyHash, record);
    const first = cache.lookup(key);
    await flush();
    cache.forgetMisses();
    const second = cache.lookup(key);
    await store.answerAll();
    expect(await Promise.all([first, second])).toEqual([record, record]);
    expect(store.pending).toHaveLength(0);
  });

  it('a failed read fails the requests waiting on it, and the next request reads again', async () => {
    const { store, cache, key, record } = setup();
    let fail = true;
    const find = store.findByHash.bind(store);
    store.findByHash = (keyHash) => (fail ? Promise.reject(new Error('connection lost')) : find(keyHash));
    const waiting = await Promise.allSettled([cache.lookup(key), cache.lookup(key)]);
    expect(waiting.map((result) => result.status === 'rejected' && String(result.reason))).toEqual(['Error: connection lost', 'Error: connection lost']);
    fail = false;
    store.keys.set(record.keyHash, record);
    const next = cache.lookup(key);
    await store.answerAll();
    expect(await next).toEqual(record);
  });
});

describe('ApiKeyCache.knownValid', () => {
  it('is true only for a key found valid here, until it is revoked or expires; never for misses', async () => {
    const { store, cache, key, record } = setup();
    const now = new Date('2026-11-23T10:00:00Z').getTime();
    expect(cache.knownValid(key, now)).toBe(false);
    store.keys.set(record.keyHash, { ...record, expiresAt: new Date(now + 1000) });
    const found = cache.lookup(key);
    await store.answerAll();
    await found;
    expect(cache.knownValid(key, now)).toBe(true);
    expect(cache.knownValid(key, now + 1000)).toBe(false);
    cache.evictKey(record.id);
    expect(cache.knownValid(key, now)).toBe(false);

    const unknown = generateApiKey('sandbox');
    const missed = cache.lookup(unknown);
    await store.answerAll();
    expect(await missed).toBeNull();
    expect(cache.knownValid(unknown, now)).toBe(false);
  });
});
