/**
 * What the gateway answers: API keys, which live in its store and the developer console manages, and
 * the request log it records of the public API. Part of the operation map in ../rpc-operations.ts.
 */
import type { ErrorEnvelope } from '../error-codes';
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

/** The status classes the request log filters by. */
export const REQUEST_STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
export type RequestStatusClass = (typeof REQUEST_STATUS_CLASSES)[number];

/**
 * One public API request as the gateway recorded it: never a body, a key or a secret; the key only by
 * its display prefix. A refusal keeps the error envelope the client got.
 */
export interface RequestLogEntry {
  requestId: string;
  /** When the request arrived, by the platform clock. */
  at: string;
  method: string;
  /** The path as requested, without its query string. */
  path: string;
  status: number;
  /** The envelope's code, for a refusal. */
  errorCode: string | null;
  /** The display prefix of the key the request carried (`qk_sb_` and 4 characters). */
  keyPrefix: string | null;
  durationMs: number;
}

/** One recorded request with, for a refusal, the error envelope the client got (`details` cut to a bounded size). */
export interface RequestLogDetail extends RequestLogEntry {
  errorEnvelope: ErrorEnvelope | null;
}

export interface ListRequestLogCall {
  appId: string;
  statusClass: RequestStatusClass | null;
  /** A path to match, with or without the `/platform/v1` base. */
  path: string | null;
  /** `prefix`: every path that starts with `path`; `exact`: only `path` itself. */
  pathMatch: 'prefix' | 'exact';
  /** A key's display prefix, exactly. */
  keyPrefix: string | null;
  /** 1–100. */
  limit: number;
  cursor: string | null;
}

/** Newest first, without the envelopes (requests.get has them). */
export interface RequestLogPage {
  data: RequestLogEntry[];
  nextCursor: string | null;
}

export interface GatewayOperations {
  /** A new key (refused with key_limit_reached beyond 2 active per environment). */
  'keys.create': { request: CreateApiKeyCall; reply: CreatedApiKey };
  /** The app's keys, oldest first, revoked ones too. */
  'keys.list': { request: { appId: string }; reply: { data: ApiKeyListing[] } };
  /** Revokes a key at once on every gateway replica (revoking twice is harmless). */
  'keys.revoke': { request: { appId: string; keyId: string }; reply: ApiKeyListing };
  /** The app's recorded requests of the last 7 days, newest first. */
  'requests.list': { request: ListRequestLogCall; reply: RequestLogPage };
  /** One recorded request of the app (another app's request id is not_found). */
  'requests.get': { request: { appId: string; requestId: string }; reply: RequestLogDetail };
}
