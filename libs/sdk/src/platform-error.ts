import type { ErrorCode, ErrorType } from './api-types';

/** One failing field of an `invalid_request` error. */
export interface ErrorDetail {
  field: string;
  issue: string;
  [key: string]: unknown;
}

/** Response headers as a plain object with lower-case names. */
export type ResponseHeaders = Record<string, string>;

/**
 * The API refused the request: a non-2xx answer carrying the error envelope
 * `{error: {code, message, type, requestId, docUrl, details?}}`. Branch on `code` (stable, typed as
 * the union of documented codes); `message` is for humans and may change.
 *
 * ```ts
 * try { await client.messages.send(body); }
 * catch (e) { if (e instanceof PlatformError && e.code === 'consent_required') askToOptIn(); else throw e; }
 * ```
 */
export class PlatformError extends Error {
  override readonly name = 'PlatformError';
  /** The documented error code, e.g. `consent_required`. */
  readonly code: ErrorCode;
  /** The error family, e.g. `permission_error`. */
  readonly type: ErrorType;
  /** The HTTP status. */
  readonly status: number;
  /** The `Svc-Request-Id` of the failed request: quote it to support. */
  readonly requestId: string | null;
  /** The failing fields of an `invalid_request`, else undefined. */
  readonly details: ErrorDetail[] | undefined;
  /** Where the code is documented. */
  readonly docUrl: string | null;
  /** The response's headers (lower-case names), e.g. `retry-after`. */
  readonly headers: ResponseHeaders;

  constructor(init: {
    code: ErrorCode;
    type: ErrorType;
    status: number;
    message: string;
    requestId: string | null;
    details?: ErrorDetail[];
    docUrl?: string | null;
    headers: ResponseHeaders;
  }) {
    super(init.message);
    this.code = init.code;
    this.type = init.type;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details;
    this.docUrl = init.docUrl ?? null;
    this.headers = init.headers;
  }
}

/**
 * No usable answer from the API: the network failed, the request timed out (`timedOut`), or the
 * answer was not the API's (a proxy's HTML error page, an upload refused by storage), in which case
 * `status`, `headers` and `body` say what came back. Thrown after the retries the policy allows.
 */
export class PlatformConnectionError extends Error {
  override readonly name = 'PlatformConnectionError';
  /** The HTTP status when something answered, else null. */
  readonly status: number | null;
  /** True when the request was cut off by `timeoutMs`. */
  readonly timedOut: boolean;
  /** The answer's headers when something answered, else empty. */
  readonly headers: ResponseHeaders;
  /** The answer's body text (first 2 000 characters) when something answered. */
  readonly body: string | undefined;

  constructor(message: string, init: { status?: number | null; timedOut?: boolean; headers?: ResponseHeaders; body?: string; cause?: unknown } = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status ?? null;
    this.timedOut = init.timedOut ?? false;
    this.headers = init.headers ?? {};
    this.body = init.body;
  }
}
