/** Public error types of the spec's envelope. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'conflict_error'
  | 'idempotency_error'
  | 'rate_limit_error'
  | 'api_error';

export interface ErrorCodeSpec {
  status: number;
  type: ErrorType;
  /** Default human message; callers may give a more precise one. */
  message: string;
}

/**
 * Every error code the platform answers with, its HTTP status and error type.
 * Clients branch on the code, so these strings are a stable contract.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, type: 'invalid_request_error', message: 'The request is invalid.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  idempotency_key_required: { status: 400, type: 'idempotency_error', message: 'This request needs an Idempotency-Key header.' },
  invalid_api_key: { status: 401, type: 'authentication_error', message: 'The API key is missing, unknown, revoked or expired.' },
  insufficient_scope: { status: 403, type: 'permission_error', message: 'The API key lacks the scope this call needs.' },
  app_suspended: { status: 403, type: 'permission_error', message: 'The app is suspended or rejected.' },
  key_environment_mismatch: { status: 403, type: 'permission_error', message: 'A live key cannot be used before the app is approved.' },
  consent_required: { status: 403, type: 'permission_error', message: 'The user has not opted in to this app.' },
  recipient_not_tester: { status: 403, type: 'permission_error', message: 'Sandbox keys reach accepted testers only.' },
  recipient_outside_org: { status: 403, type: 'permission_error', message: "The recipient is outside the app's organization." },
  recipient_org_blocks_businesses: { status: 403, type: 'permission_error', message: "The recipient's organization does not allow outside businesses." },
  recipient_unavailable: { status: 403, type: 'permission_error', message: "The recipient's account is not active." },
  email_addressing_not_allowed: { status: 403, type: 'permission_error', message: 'Email addressing needs an internal_live app and a live key.' },
  not_found: { status: 404, type: 'not_found_error', message: 'The resource does not exist.' },
  recipient_not_found: { status: 404, type: 'not_found_error', message: 'No such recipient for this app.' },
  route_not_found: { status: 404, type: 'not_found_error', message: 'No such endpoint.' },
  template_not_found: { status: 404, type: 'not_found_error', message: 'No template of that name and language.' },
  media_not_uploaded: { status: 409, type: 'conflict_error', message: 'The media bytes have not been uploaded yet.' },
  idempotency_in_progress: { status: 409, type: 'idempotency_error', message: 'A request with this Idempotency-Key is still running.' },
  subscription_limit_reached: { status: 409, type: 'conflict_error', message: 'An app may have at most 5 webhook endpoints.' },
  subscription_not_verified: { status: 409, type: 'conflict_error', message: 'Verify the endpoint before sending test events.' },
  delivery_in_progress: { status: 409, type: 'conflict_error', message: 'Only delivered or failed deliveries can be replayed.' },
  payload_expired: { status: 409, type: 'conflict_error', message: 'The delivery payload is past its 7-day retention.' },
  template_exists: { status: 409, type: 'conflict_error', message: 'A template of that name and language exists.' },
  template_limit_reached: { status: 409, type: 'conflict_error', message: 'An app may have at most 250 templates.' },
  template_not_approved: { status: 409, type: 'conflict_error', message: 'The template is not approved.' },
  // Endpoint recovery (POST /webhooks/{id}/recover, ADR 0224).
  endpoint_disabled: { status: 409, type: 'conflict_error', message: 'The endpoint is disabled; verify it again before recovering its events.' },
  recover_in_progress: { status: 409, type: 'conflict_error', message: 'A recovery of this endpoint is still in progress.' },
  key_limit_reached: { status: 409, type: 'conflict_error', message: 'At most 2 active keys per environment.' },
  handle_taken: { status: 409, type: 'conflict_error', message: 'That handle is taken.' },
  invalid_transition: { status: 409, type: 'conflict_error', message: 'That change is not allowed from the current state.' },
  request_timeout: { status: 408, type: 'invalid_request_error', message: 'The request did not arrive in time.' },
  payload_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  media_too_large: { status: 413, type: 'invalid_request_error', message: 'The file is larger than its type allows.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', message: 'Unsupported media type.' },
  idempotency_key_reused: { status: 422, type: 'idempotency_error', message: 'This Idempotency-Key was used with a different body.' },
  media_invalid: { status: 422, type: 'invalid_request_error', message: 'The uploaded file differs from its declaration.' },
  verify_token_mismatch: { status: 422, type: 'invalid_request_error', message: "The verify token differs from the endpoint's." },
  webhook_url_https_required: { status: 422, type: 'invalid_request_error', message: 'The URL must use https.' },
  webhook_url_port_not_allowed: { status: 422, type: 'invalid_request_error', message: 'The URL must use port 443.' },
  webhook_url_blocked_address: { status: 422, type: 'invalid_request_error', message: 'The host resolves to a private or reserved address.' },
  webhook_url_blocked_host: { status: 422, type: 'invalid_request_error', message: 'The host is internal or not a fully-qualified domain name.' },
  webhook_url_dns_failed: { status: 422, type: 'invalid_request_error', message: 'The host cannot be resolved.' },
  webhook_url_invalid_url: { status: 422, type: 'invalid_request_error', message: 'Not a valid absolute URL (no credentials or fragments).' },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Too many requests; wait Retry-After seconds.' },
  daily_quota_exceeded: { status: 429, type: 'rate_limit_error', message: 'The daily message quota is used up; it resets at 00:00 UTC.' },
  business_initiated_cap: { status: 429, type: 'rate_limit_error', message: 'More than 3 business-initiated messages to this user in 24 hours.' },
  media_rate_limited: { status: 429, type: 'rate_limit_error', message: 'Too many uploads this hour.' },
  headers_too_large: { status: 431, type: 'invalid_request_error', message: 'The request line or headers are larger than 16 KiB.' },
  internal_error: { status: 500, type: 'api_error', message: 'Something went wrong on our side; retry with the same Idempotency-Key.' },
} as const satisfies Record<string, ErrorCodeSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes only the operators' admin API gives; the public API never answers with them. */
const ADMIN_ONLY_ERROR_CODES: readonly ErrorCode[] = ['key_limit_reached', 'handle_taken', 'invalid_transition'];

/** Every code the public API may answer with (spec, Errors), in the table's order. */
export const PUBLIC_ERROR_CODES: readonly ErrorCode[] = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((code) => !ADMIN_ONLY_ERROR_CODES.includes(code));

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** One failing field of an invalid_request error (architecture section 3, step 7). */
export interface ErrorDetail {
  /** JSON-pointer-ish path of the field, e.g. `to.appUserId`. */
  field: string;
  /** What is wrong with it, for humans. */
  issue: string;
}

/** The error envelope every non-2xx response carries. */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    message: string;
    type: ErrorType;
    /** Equals the Svc-Request-Id header. */
    requestId: string;
    /** `{DOCS_URL}/errors#<code>` */
    docUrl: string;
    details?: ErrorDetail[];
  };
}
