import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { ErrorCode, JsonSchema, RpcCaller, Scope } from '#platform/contracts';
import type { ApiKeyRecord } from '../api-keys/api-key.cache';
import type { AppAccess } from '../app-status/app-access.cache';
import type { QuerySpec } from '../http/query-params';
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

/** Path ids are at most 64 characters (spec, Endpoints); the pipeline refuses longer ones (400) for every route. */
export const PATH_ID_MAX_LENGTH = 64;

/**
 * What the OpenAPI document says of a route beyond what the route itself declares (method, path,
 * scope, body DTO, query, idempotency), which the document reads from the route directly.
 */
export interface RouteDoc {
  /** Stable name of the operation; the SDK's method names follow it. */
  operationId: string;
  summary: string;
  description?: string;
  /** The reference's section. */
  tag: string;
  /** Each path parameter (`:name` in the path) and what it is. */
  pathParams?: Record<string, string>;
  /** The answer on success: its status and the component schema of its body (none for 204), or another media type's. */
  success: { status: number; schema?: string; description: string; mediaType?: { type: string; schema: JsonSchema; example: string } };
  /** Request headers it reads beyond the common ones, and what each means. */
  requestHeaders?: Record<string, string>;
  /** Refusals the owning service decides, beyond those the pipeline gives every route of this shape. */
  errors?: readonly ErrorCode[];
}

/** One public endpoint: its scope (null = any valid key), body DTO, query and handler. */
export interface PublicRoute<B = any> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  scope: Scope | null;
  body?: DtoClass<B & object>;
  /** The query parameters it reads (parsed with readQuery, shown in the document). */
  query?: QuerySpec;
  doc: RouteDoc;
  /**
   * Needs an Idempotency-Key (architecture section 3, step 6). The owning service keeps the key's record
   * in the transaction that carries out the request, and answers a replay, 409 or 422 itself;
   * `heldKey` asks it who holds the key when the body fails validation, since the key is looked up
   * before the body is validated: the holder's answer (a replay), a thrown 409 or 422, or null for
   * a free key.
   */
  idempotent?: {
    heldKey: (caller: RpcCaller, appId: string, idempotency: { key: string; bodyHash: string }) => Promise<PublicResult | null>;
    /** When the key's record began, read from a 2xx answer: the gateway's copy of it (FinishedKeys) ends 24 h later, as the record does. */
    recordedAt: (result: PublicResult) => number;
  };
  handle: (ctx: PublicContext<B>) => Promise<PublicResult>;
}
