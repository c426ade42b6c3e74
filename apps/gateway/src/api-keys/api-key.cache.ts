import type { KeyEnvironment, Scope } from '@platform/contracts';
import type { Clock } from '@platform/clock';
import type { ServiceRuntime } from '@platform/service-kit';
import { Counter } from 'prom-client';
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
}

type Entry = { record: ApiKeyRecord | null; loadedAt: number };

const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/**
 * Key lookups touch Postgres at most once per key per TTL (default a minute). Revocations arrive on
 * gateway.events and evict the key on every replica; a new key clears remembered misses, so a key
 * works the moment it is created. Bounded LRU so random keys cannot grow it without limit.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly hashByKeyId = new Map<string, string>();
  private readonly lastUsedWritten = new Map<string, number>();
  readonly dbLookups: Counter;

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly clock: Clock,
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 50_000,
  ) {
    this.dbLookups = new Counter({ name: 'gateway_api_key_db_lookups_total', help: 'API key lookups that went to Postgres', registers: [runtime.metrics.registry] });
  }

  async lookup(key: string): Promise<ApiKeyRecord | null> {
    const hash = hashApiKey(key);
    const now = Date.now();
    const cached = this.entries.get(hash);
    if (cached && now - cached.loadedAt < this.ttlMs) {
      // Refresh LRU position.
      this.entries.delete(hash);
      this.entries.set(hash, cached);
      return cached.record;
    }
    this.dbLookups.inc();
    const view = await this.runtime.em().findOne(ApiKeyView, { keyHash: hash });
    const record: ApiKeyRecord | null =
      view && hashesEqual(view.keyHash, hash)
        ? { id: view.id, appId: view.appId, environment: view.environment, scopes: view.scopes, expiresAt: view.expiresAt, revokedAt: view.revokedAt, keyHash: view.keyHash }
        : null;
    this.remember(hash, { record, loadedAt: now });
    return record;
  }

  evictKey(keyId: string): void {
    const hash = this.hashByKeyId.get(keyId);
    if (hash) this.entries.delete(hash);
    this.hashByKeyId.delete(keyId);
  }

  /** A key was created somewhere: remembered misses may now be hits. */
  forgetMisses(): void {
    for (const [hash, entry] of this.entries) if (entry.record === null) this.entries.delete(hash);
  }

  /** Records use at most once a minute per key, off the request path. */
  touch(record: ApiKeyRecord): void {
    const now = this.clock.nowMs();
    const last = this.lastUsedWritten.get(record.id) ?? 0;
    if (now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWritten.set(record.id, now);
    void this.runtime
      .em()
      .nativeUpdate(ApiKeyView, { id: record.id }, { lastUsedAt: new Date(now) })
      .catch(() => this.lastUsedWritten.delete(record.id));
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
