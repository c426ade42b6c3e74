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
  handle: (ctx: PublicContext<B>) => Promise<PublicResult>;
}
