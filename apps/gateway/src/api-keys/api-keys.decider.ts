import { MAX_ACTIVE_KEYS_PER_ENVIRONMENT, type KeyEnvironment, type Scope } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveApiKeys, initialApiKeysState, type ApiKeyEvent, type ApiKeysState } from './api-keys.state';

export type ApiKeysCommand =
  | Command<
      'CreateApiKey',
      { appId: string; keyId: string; environment: KeyEnvironment; scopes: Scope[]; expiresAt: string | null; keyHash: string; prefix: string }
    >
  | Command<'RevokeApiKey', { appId: string; keyId: string }>;

/** Active = not revoked and not past its expiry at `now`. */
export function activeKeyCount(state: ApiKeysState, environment: KeyEnvironment, now: Date): number {
  return state.keys.filter((k) => k.environment === environment && !k.revoked && (k.expiresAt === null || new Date(k.expiresAt) > now)).length;
}

export function decideApiKeys(command: ApiKeysCommand, state: ApiKeysState): ApiKeyEvent[] {
  switch (command.type) {
    case 'CreateApiKey': {
      const d = command.data;
      if (d.expiresAt !== null && new Date(d.expiresAt) <= command.metadata.now) {
        throw DomainError.invalid([{ field: 'expiresAt', issue: 'must be in the future' }]);
      }
      if (activeKeyCount(state, d.environment, command.metadata.now) >= MAX_ACTIVE_KEYS_PER_ENVIRONMENT) {
        throw new DomainError('key_limit_reached', `The app already has ${MAX_ACTIVE_KEYS_PER_ENVIRONMENT} active ${d.environment} keys; revoke one first.`);
      }
      return [{ type: 'ApiKeyCreated', data: { ...d } }];
    }
    case 'RevokeApiKey': {
      const key = state.keys.find((k) => k.keyId === command.data.keyId);
      if (!key) throw new DomainError('not_found', 'No such key.');
      // Revoking twice is harmless and says nothing new.
      if (key.revoked) return [];
      return [{ type: 'ApiKeyRevoked', data: { keyId: key.keyId, appId: command.data.appId } }];
    }
    default:
      return assertNever(command);
  }
}

export const apiKeysDecider: Decider<ApiKeysState, ApiKeysCommand, ApiKeyEvent> = {
  initialState: initialApiKeysState,
  decide: decideApiKeys,
  evolve: evolveApiKeys,
};
