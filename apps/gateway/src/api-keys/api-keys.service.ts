import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ID_PREFIX,
  newId,
  SCOPES,
  type ApiKeyListing,
  type CreatedApiKey,
  type DomainEvent,
  type KeyEnvironment,
  type RpcCaller,
  type Scope,
} from '#platform/contracts';
import { handleCommand, storedEventGuard } from '#platform/event-store';
import type { ServiceRuntime } from '#platform/service-kit';
import { ApiKeyView } from '../persistence/api-key.entity';
import type { ApiKeyCache } from './api-key.cache';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format';
import { apiKeysDecider, type ApiKeysCommand } from './api-keys.decider';
import type { ApiKeyEvent } from './api-keys.state';

/** Key management for the admin API and the console (over RPC): the full key exists only in the create response. */
export class ApiKeysService {
  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly cache: ApiKeyCache,
  ) {}

  async create(appId: string, input: { environment: KeyEnvironment; scopes?: Scope[]; expiresAt?: string | null }, caller: RpcCaller): Promise<CreatedApiKey> {
    const key = generateApiKey(input.environment);
    const now = this.runtime.clock.now();
    const keyId = newId(ID_PREFIX.key, now.getTime());
    const expiresAt = input.expiresAt ? new Date(input.expiresAt).toISOString() : null;
    const scopes = input.scopes ?? [...SCOPES];
    await this.execute(
      appId,
      {
        type: 'CreateApiKey',
        data: { appId, keyId, environment: input.environment, scopes, expiresAt, keyHash: hashApiKey(key), prefix: displayPrefix(key) },
        metadata: { now },
      },
      caller,
    );
    this.cache.forgetMisses();
    return { id: keyId, key, environment: input.environment, scopes, createdAt: now.toISOString(), expiresAt };
  }

  async list(appId: string): Promise<ApiKeyListing[]> {
    const views = await this.runtime.em().find(ApiKeyView, { appId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return views.map(toListing);
  }

  async revoke(appId: string, keyId: string, caller: RpcCaller): Promise<ApiKeyListing> {
    await this.execute(appId, { type: 'RevokeApiKey', data: { appId, keyId }, metadata: { now: this.runtime.clock.now() } }, caller);
    this.cache.evictKey(keyId);
    const view = await this.runtime.em().findOneOrFail(ApiKeyView, { id: keyId, appId });
    return toListing(view);
  }

  private execute(appId: string, command: ApiKeysCommand, caller: RpcCaller) {
    return handleCommand({
      em: this.runtime.em(),
      eventStore: this.runtime.eventStore,
      decider: apiKeysDecider,
      streamId: `app-keys-${appId}`,
      command,
      meta: { now: command.metadata.now, appId, correlationId: caller.requestId, causationId: caller.requestId },
      project: (em, events) => projectKeys(em, events),
    });
  }
}

const isApiKeyEvent = storedEventGuard<ApiKeyEvent>({ ApiKeyCreated: true, ApiKeyRevoked: true });

async function projectKeys(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const event of events) {
    if (!isApiKeyEvent(event)) continue;
    const at = new Date(event.occurredAt);
    if (event.type === 'ApiKeyCreated') {
      const d = event.data;
      em.create(ApiKeyView, {
        id: d.keyId,
        appId: d.appId,
        environment: d.environment,
        prefix: d.prefix,
        keyHash: d.keyHash,
        scopes: d.scopes,
        createdAt: at,
        expiresAt: d.expiresAt ? new Date(d.expiresAt) : null,
        revokedAt: null,
        lastUsedAt: null,
      });
    } else if (event.type === 'ApiKeyRevoked') {
      const d = event.data;
      await em.nativeUpdate(ApiKeyView, { id: d.keyId }, { revokedAt: at });
    }
  }
  await em.flush();
}

function toListing(view: ApiKeyView): ApiKeyListing {
  return {
    id: view.id,
    prefix: view.prefix,
    environment: view.environment,
    scopes: view.scopes,
    createdAt: view.createdAt.toISOString(),
    expiresAt: view.expiresAt?.toISOString() ?? null,
    lastUsedAt: view.lastUsedAt?.toISOString() ?? null,
    revokedAt: view.revokedAt?.toISOString() ?? null,
  };
}
