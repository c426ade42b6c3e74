import { PlatformConnectionError, PlatformError, type ErrorDetail, type ResponseHeaders } from './platform-error';
import { retryDelay, type AttemptOutcome, type RetrySettings } from './retry-policy';
import type { ErrorCode, ErrorType } from './api-types';

/** This package's version, sent in the User-Agent. */
export const SDK_VERSION = '0.1.0';
/** The API version this SDK was generated against; sent as `Svc-Version` so answers keep this shape. */
export const API_VERSION = '2026-10-01';

/** What the SDK needs of a `fetch` implementation (the global one fits). */
export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponseLike>;

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface FetchResponseLike {
  status: number;
  headers: { get(name: string): string | null; forEach(callback: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

/** Options every call accepts as its last argument; they override the client's for that call. */
export interface RequestOptions {
  /** Retries for this call (see the README's retry policy). */
  maxRetries?: number;
  /** Time limit of each attempt, in ms. */
  timeoutMs?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
}

/** What came back with a result; attached to results as the non-enumerable `lastResponse`. */
export interface ResponseMeta {
  status: number;
  requestId: string | null;
  headers: ResponseHeaders;
  /** True when POST /messages replayed the first answer to this Idempotency-Key. */
  idempotentReplayed: boolean;
}

/** A result with the metadata of the response that carried it (like Stripe's `lastResponse`). */
export type ApiResult<T> = T & { readonly lastResponse: ResponseMeta };

export interface SenderConfig {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  retry: RetrySettings;
  fetch: FetchLike;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/** One HTTP exchange as the resources describe it. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** A path under the base URL, or an absolute URL when `external` (an upload target). */
  path: string;
  query?: Record<string, string | number | boolean | null | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (uploads). */
  rawBody?: Uint8Array;
  /** Extra headers; for `external` requests the only ones sent. */
  headers?: Record<string, string>;
  /** Whether repeating the request is harmless (see retry-policy.ts). */
  idempotent: boolean;
  /** A request to another origin (storage): no API key, no JSON handling. */
  external?: boolean;
}

interface RawResponse {
  status: number;
  headers: ResponseHeaders;
  text: string;
}

const ERROR_TYPES: Record<number, ErrorType> = {
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  409: 'conflict_error',
  429: 'rate_limit_error',
};

/** Sends requests with the API key, timeouts and the retry policy, and maps failures to errors. */
export class RequestSender {
  constructor(private readonly config: SenderConfig) {}

  /** An API call: the parsed JSON result (undefined for 204) or a thrown PlatformError. */
  async request<T>(spec: RequestSpec, options: RequestOptions = {}): Promise<ApiResult<T>> {
    const response = await this.send(spec, options);
    if (response.status >= 200 && response.status < 300) return withMeta(this.parseSuccess<T>(response), response);
    throw toError(response);
  }

  /** The exchange with retries; answers the last response, whatever its status. */
  async send(spec: RequestSpec, options: RequestOptions = {}): Promise<RawResponse> {
    const settings = { ...this.config.retry, ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }) };
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    const { url, init } = this.prepare(spec);
    for (let retriesSoFar = 0; ; retriesSoFar++) {
      let outcome: AttemptOutcome;
      let response: RawResponse | undefined;
      let failure: unknown;
      try {
        response = await this.attempt(url, init, timeoutMs, options.signal);
        if (response.status < 400) return response;
        outcome = {
          kind: 'response',
          status: response.status,
          code: spec.external ? undefined : errorCodeOf(response),
          retryAfter: response.headers['retry-after'] ?? null,
        };
      } catch (error) {
        if (options.signal?.aborted) throw error;
        failure = error;
        outcome = error instanceof PlatformConnectionError && error.timedOut ? { kind: 'timeout' } : { kind: 'network', error };
      }
      const delay = retryDelay(outcome, { retriesSoFar, idempotent: spec.idempotent, settings, random: this.config.random, nowMs: Date.now() });
      if (delay === null) {
        if (response) return response;
        throw failure;
      }
      await this.config.sleep(delay);
    }
  }

  private prepare(spec: RequestSpec): { url: string; init: FetchInit } {
    let url = spec.external ? spec.path : this.config.baseUrl + spec.path;
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined && value !== null) query.set(name, String(value));
    const search = query.toString();
    if (search) url += `?${search}`;
    if (spec.external) return { url, init: { method: spec.method, headers: { ...spec.headers }, body: spec.rawBody } };
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.config.apiKey}`,
      accept: 'application/json',
      'svc-version': API_VERSION,
      'user-agent': `platform-sdk-node/${SDK_VERSION} node/${process.version}`,
      ...spec.headers,
    };
    let body: string | Uint8Array | undefined = spec.rawBody;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }
    return { url, init: { method: spec.method, headers, body } };
  }

  /** One try; the timer covers the whole answer, body included. */
  private async attempt(url: string, init: FetchInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<RawResponse> {
    signal?.throwIfAborted();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    try {
      const res = await this.config.fetch(url, { ...init, signal: controller.signal });
      const text = await res.text();
      const headers: ResponseHeaders = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: res.status, headers, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      if (timedOut) throw new PlatformConnectionError(`${init.method} ${redact(url)} timed out after ${timeoutMs} ms`, { timedOut: true, cause: error });
      throw new PlatformConnectionError(`${init.method} ${redact(url)} failed: ${describe(error)}`, { cause: error });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }

  private parseSuccess<T>(response: RawResponse): T {
    if (response.status === 204 || response.text === '') return undefined as T;
    try {
      return JSON.parse(response.text) as T;
    } catch {
      throw new PlatformConnectionError(`the API answered ${response.status} with a body that is not JSON`, {
        status: response.status,
        headers: response.headers,
        body: response.text.slice(0, 2000),
      });
    }
  }
}

/** Attaches `lastResponse` to object results without making it part of their JSON. */
function withMeta<T>(value: T, response: RawResponse): ApiResult<T> {
  if (value === null || typeof value !== 'object') return value as ApiResult<T>;
  const meta: ResponseMeta = {
    status: response.status,
    requestId: response.headers['svc-request-id'] ?? null,
    headers: response.headers,
    idempotentReplayed: response.headers['idempotent-replayed'] === 'true',
  };
  Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
  return value as ApiResult<T>;
}

function parseEnvelope(text: string): { code: string; message?: unknown; type?: unknown; requestId?: unknown; docUrl?: unknown; details?: unknown } | null {
  try {
    const error = (JSON.parse(text) as { error?: unknown })?.error as { code?: unknown } | undefined;
    return error && typeof error === 'object' && typeof error.code === 'string' ? (error as { code: string }) : null;
  } catch {
    return null;
  }
}

function errorCodeOf(response: RawResponse): string | undefined {
  return parseEnvelope(response.text)?.code;
}

/** A non-2xx answer as the error to throw: PlatformError for the envelope, else PlatformConnectionError. */
export function toError(response: RawResponse): Error {
  const envelope = parseEnvelope(response.text);
  if (!envelope) {
    return new PlatformConnectionError(`unexpected answer ${response.status} (not the API's error envelope)`, {
      status: response.status,
      headers: response.headers,
      body: response.text.slice(0, 2000),
    });
  }
  const fallbackType: ErrorType = response.status >= 500 ? 'api_error' : (ERROR_TYPES[response.status] ?? 'invalid_request_error');
  return new PlatformError({
    code: envelope.code as ErrorCode,
    type: typeof envelope.type === 'string' ? (envelope.type as ErrorType) : fallbackType,
    status: response.status,
    message: typeof envelope.message === 'string' ? envelope.message : envelope.code,
    requestId: typeof envelope.requestId === 'string' ? envelope.requestId : (response.headers['svc-request-id'] ?? null),
    details: Array.isArray(envelope.details) ? (envelope.details as ErrorDetail[]) : undefined,
    docUrl: typeof envelope.docUrl === 'string' ? envelope.docUrl : null,
    headers: response.headers,
  });
}

/** Presigned URLs carry credentials in the query: keep them out of messages and logs. */
function redact(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?…`;
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const base = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${base} (${cause.code})` : cause?.message ? `${base} (${cause.message})` : base;
}
