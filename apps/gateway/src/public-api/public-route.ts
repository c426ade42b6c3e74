import type { RpcCaller, Scope } from '@platform/contracts';
import type { ApiKeyRecord } from '../api-keys/api-key.cache';
import type { AppAccess } from '../app-status/app-access.cache';
import type { DtoClass } from '../http/validate-body';

export interface PublicContext<B = unknown> {
  requestId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: B;
  key: ApiKeyRecord;
  app: AppAccess;
  caller: RpcCaller;
  /** The request's Idempotency-Key and body hash, on idempotent routes. */
  idempotency: { key: string; bodyHash: string } | null;
}

export interface PublicResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One public endpoint: its scope (null = any valid key), body DTO and handler. */
export interface PublicRoute<B = any> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  scope: Scope | null;
  body?: DtoClass<B & object>;
  /** Needs an Idempotency-Key; 2xx answers are stored and replayed (DESIGN section 3, step 6). */
  idempotent?: boolean;
  handle: (ctx: PublicContext<B>) => Promise<PublicResult>;
}
