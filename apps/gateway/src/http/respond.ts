import type { ServerResponse } from 'node:http';
import { API_VERSION, type ErrorCode, type ErrorEnvelope } from '#platform/contracts';
import { DomainError, errorEnvelope, isDomainError } from '#platform/errors';
import { log } from '#platform/service-kit';

/** Answers `body` as JSON; returns the length of the JSON sent. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  const payload = body === undefined ? '' : JSON.stringify(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (payload) {
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(payload));
  }
  res.end(payload);
  return payload.length;
}

/**
 * Every refusal uses the envelope; anything unexpected is logged and answered 500 internal_error.
 * Returns the envelope sent and the length of its JSON (the request log keeps it).
 */
export function sendError(
  res: ServerResponse,
  error: unknown,
  requestId: string,
  docsUrl: string,
  headers: Record<string, string> = {},
): { envelope: ErrorEnvelope; jsonLength: number } {
  let domain: DomainError;
  if (isDomainError(error)) {
    domain = error;
  } else {
    log('error', 'unhandled error', { requestId, error: String((error as Error)?.stack ?? error) });
    domain = new DomainError('internal_error');
  }
  const envelope = errorEnvelope({ code: domain.code as ErrorCode, message: domain.message, requestId, docsUrl, details: domain.details });
  return { envelope, jsonLength: sendJson(res, domain.status, envelope, headers) };
}

export function commonHeaders(res: ServerResponse, requestId: string): void {
  res.setHeader('Svc-Request-Id', requestId);
  res.setHeader('Svc-Version', API_VERSION);
}
