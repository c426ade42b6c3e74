import type { ApiKeyCreated, ApiKeyRevoked, KeyEnvironment, Scope } from '#platform/contracts';

/**
 * Events of an app's API keys (stream `app-keys-<appId>`). The stored ApiKeyCreated also holds the
 * key's SHA-256 hash and display prefix; the published copy on gateway.events leaves them out.
 */
export type StoredApiKeyCreated = {
  type: 'ApiKeyCreated';
  data: ApiKeyCreated['data'] & { keyHash: string; prefix: string };
};
export type ApiKeyEvent = StoredApiKeyCreated | Pick<ApiKeyRevoked, 'type' | 'data'>;

export interface KeyState {
  keyId: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  expiresAt: string | null;
  revoked: boolean;
}

/** All keys of one app; the state is never "absent" because an app without keys is valid. */
export type ApiKeysState = { kind: 'keys'; appId: string | null; keys: KeyState[] };

export const initialApiKeysState = (): ApiKeysState => ({ kind: 'keys', appId: null, keys: [] });

export function evolveApiKeys(state: ApiKeysState, event: ApiKeyEvent): ApiKeysState {
  switch (event.type) {
    case 'ApiKeyCreated': {
      const d = event.data;
      return {
        kind: 'keys',
        appId: d.appId,
        keys: [...state.keys, { keyId: d.keyId, environment: d.environment, scopes: d.scopes, expiresAt: d.expiresAt, revoked: false }],
      };
    }
    case 'ApiKeyRevoked':
      return { ...state, keys: state.keys.map((k) => (k.keyId === event.data.keyId ? { ...k, revoked: true } : k)) };
  }
}
