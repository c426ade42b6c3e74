import type { RpcCaller } from '#platform/contracts';
import type { DtoClass } from '../http/validate-body';

export interface AdminContext<B = unknown> {
  requestId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: B;
  caller: RpcCaller;
}

export interface AdminRoute<B = any> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: DtoClass<B & object>;
  handle: (ctx: AdminContext<B>) => Promise<{ status: number; body?: unknown }>;
}
