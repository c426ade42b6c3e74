/**
 * What the gateway answers: API keys, which live in its store and the developer console manages.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { KeyEnvironment, Scope } from '../scopes';

/** An API key as listed: never the key, only the display prefix the admin API gives (D28). */
export interface ApiKeyListing {
  id: string;
  prefix: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key just created: the only answer that holds the key itself (sealed on the wire). */
export interface CreatedApiKey {
  id: string;
  key: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
}

export interface CreateApiKeyCall {
  appId: string;
  environment: KeyEnvironment;
  /** Default: every scope. */
  scopes?: Scope[];
  expiresAt?: string | null;
}

export interface GatewayOperations {
  /** A new key (refused with key_limit_reached beyond 2 active per environment). */
  'keys.create': { request: CreateApiKeyCall; reply: CreatedApiKey };
  /** The app's keys, oldest first, revoked ones too. */
  'keys.list': { request: { appId: string }; reply: { data: ApiKeyListing[] } };
  /** Revokes a key at once on every gateway replica (revoking twice is harmless). */
  'keys.revoke': { request: { appId: string; keyId: string }; reply: ApiKeyListing };
}
