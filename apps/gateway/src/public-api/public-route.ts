import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { RpcCaller, Scope } from '@platform/contracts';
import type { ApiKeyRecord } from '../api-keys/api-key.cache';
import type { AppAccess } from '../app-status/app-access.cache';
import type { DtoClass } from '../http/validate-body';

export interface PublicContext<B = unknown> {
  requestId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
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
  /** Takes the response over once the pipeline's checks passed (an event stream); must not throw. */
  stream?: (res: ServerResponse) => Promise<void>;
}

/** One public endpoint: its scope (null = any valid key), body DTO and handler. */
export interface PublicRoute<B = any> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  scope: Scope | null;
  body?: DtoClass<B & object>;
  /**
   * Needs an Idempotency-Key (DESIGN section 3, step 6). The owning service keeps the key's record
   * in the transaction that carries out the request, and answers a replay, 409 or 422 itself;
   * `heldKey` asks it who holds the key when the body fails validation, since the key is looked up
   * before the body is validated: the holder's answer (a replay), a thrown 409 or 422, or null for
   * a free key.
   */
  idempotent?: { heldKey: (caller: RpcCaller, appId: string, idempotency: { key: string; bodyHash: string }) => Promise<PublicResult | null> };
  handle: (ctx: PublicContext<B>) => Promise<PublicResult>;
}
