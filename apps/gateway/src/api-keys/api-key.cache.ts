import type { KeyEnvironment, Scope } from '#platform/contracts';
import type { Clock } from '#platform/clock';
import type { ServiceRuntime } from '#platform/service-kit';
import { Counter, type Registry } from 'prom-client';
import { ApiKeyView } from '../persistence/api-key.entity';
import { hashApiKey, hashesEqual } from './api-key-format';

export interface ApiKeyRecord {
  id: string;
  appId: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  expiresAt: Date | null;
  revokedAt: Date | null;
  keyHash: string;
  /** The display prefix (`qk_sb_` and 4 characters), as listings and the request log show the key. */
  prefix: string;
}

/** Where the cache reads keys and records their use: Postgres in the service, memory in the unit tests. */
export interface ApiKeyStore {
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  recordUse(keyId: string, at: Date): Promise<unknown>;
}

export function postgresApiKeyStore(runtime: ServiceRuntime): ApiKeyStore {
  return {
    async findByHash(keyHash) {
      const view = await runtime.em().findOne(ApiKeyView, { keyHash });
      return (
        view && {
          id: view.id,
          appId: view.appId,
          environment: view.environment,
          scopes: view.scopes,
          expiresAt: view.expiresAt,
          revokedAt: view.revokedAt,
          keyHash: view.keyHash,
          prefix: view.prefix,
        }
      );
    },
    recordUse: (keyId, at) => runtime.em().nativeUpdate(ApiKeyView, { id: keyId }, { lastUsedAt: at }),
  };
}

type Entry = { record: ApiKeyRecord | null; loadedAt: number };
/** A query under way, with the invalidation counts when it started. */
type Load = { record: Promise<ApiKeyRecord | null>; creations: number; revocations: number };

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Key lookups touch Postgres at most once per key per TTL (default a minute). Revocations arrive on
 * gateway.events and evict the key on every replica; a new key clears remembered misses, so a key
 * works the moment it is created. Bounded LRU so random keys cannot grow it without limit.
 * Requests for a key whose query is under way wait for that query: at thousands of requests a
 * second, every key's expiry would otherwise send one query per request in flight (seen: 9 a
 * minute for one key in `bench:ping`). A request that arrived after a revocation or a new key
 * does not take an answer that event may have outdated; it reads again.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly hashByKeyId = new Map<string, string>();
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly loading = new Map<string, Load>();
  private creations = 0;
  private revocations = 0;
  readonly dbLookups: Counter;

  constructor(
    private readonly store: ApiKeyStore,
    private readonly clock: Clock,
    registry: Registry,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {
    this.dbLookups = new Counter({ name: 'gateway_api_key_db_lookups_total', help: 'API key lookups that went to Postgres', registers: [registry] });
  }

  async lookup(key: string): Promise<ApiKeyRecord | null> {
    const hash = hashApiKey(key);
    for (;;) {
      const now = Date.now();
      const cached = this.entries.get(hash);
      if (cached && now - cached.loadedAt < this.ttlMs) {
        // Refresh LRU position.
        this.entries.delete(hash);
        this.entries.set(hash, cached);
        return cached.record;
      }
      const seen = this.invalidations();
      const waiting = this.loading.get(hash);
      const load = waiting ?? this.startLoad(hash, now);
      const record = await load.record;
      if (!waiting || !this.outdatedSince(load, seen, record)) return record;
    }
  }

  /**
   * Whether this replica has found the key valid before and nothing since says otherwise (a
   * revocation evicts it; an entry past its TTL still counts): answered from memory, so the
   * per-address limit of failed authentication can let such a key by without charging it.
   */
  knownValid(key: string, nowMs: number): boolean {
    const record = this.entries.get(hashApiKey(key))?.record;
    return !!record && record.revokedAt === null && (record.expiresAt === null || record.expiresAt.getTime() > nowMs);
  }

  /**
   * The record this replica holds for the key (valid, revoked or expired), from memory only: the
   * request log attributes a refusal to the key's app with it, never at the price of a lookup.
   */
  cached(key: string): ApiKeyRecord | null {
    return this.entries.get(hashApiKey(key))?.record ?? null;
  }

  private startLoad(hash: string, now: number): Load {
    this.dbLookups.inc();
    const load: Load = { ...this.invalidations(), record: this.query(hash) };
    this.loading.set(hash, load);
    void load.record.then(
      (record) => {
        if (this.loading.get(hash) === load) this.loading.delete(hash);
        // An event seen while the query ran may postdate what it read: the next request reads again.
        if (!this.outdatedSince(load, this.invalidations(), record)) this.remember(hash, { record, loadedAt: now });
      },
      () => {
        if (this.loading.get(hash) === load) this.loading.delete(hash);
      },
    );
    return load;
  }

  private invalidations(): { creations: number; revocations: number } {
    return { creations: this.creations, revocations: this.revocations };
  }

  /** Whether a key created (for a miss) or revoked (for a hit) after the load started may have changed its answer. */
  private outdatedSince(load: Load, seen: { creations: number; revocations: number }, record: ApiKeyRecord | null): boolean {
    return record === null ? seen.creations !== load.creations : seen.revocations !== load.revocations;
  }

  private async query(hash: string): Promise<ApiKeyRecord | null> {
    const record = await this.store.findByHash(hash);
    return record && hashesEqual(record.keyHash, hash) ? record : null;
  }

  evictKey(keyId: string): void {
    this.revocations++;
    const hash = this.hashByKeyId.get(keyId);
    if (hash) this.entries.delete(hash);
    this.hashByKeyId.delete(keyId);
  }

  /** A key was created somewhere: remembered misses may now be hits. */
  forgetMisses(): void {
    this.creations++;
    for (const [hash, entry] of this.entries) if (entry.record === null) this.entries.delete(hash);
  }

  /** Records use at most once a minute per key, off the request path. */
  touch(record: ApiKeyRecord): void {
    const now = this.clock.nowMs();
    const last = this.lastUsedWritten.get(record.id) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(record.id, now);
    void this.store.recordUse(record.id, new Date(now)).catch(() => this.lastUsedWritten.delete(record.id));
  }

  private remember(hash: string, entry: Entry): void {
    this.entries.delete(hash);
    this.entries.set(hash, entry);
    if (entry.record) this.hashByKeyId.set(entry.record.id, hash);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      const old = this.entries.get(oldest);
      if (old?.record) this.hashByKeyId.delete(old.record.id);
      this.entries.delete(oldest);
    }
  }
}
