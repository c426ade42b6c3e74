import { REQUEST_STATUS_CLASSES, type ErrorDetail, type ListRequestLogCall, type RequestStatusClass } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { RequestLogCursor } from './request-log.sql';

export const MAX_PAGE = 100;
const MAX_FILTER = 1024;
const KEY_PREFIX = /^qk_(sb|live)_[0-9A-Za-z]{1,32}$/;
const REQUEST_ID = /^req_[0-9A-Za-z]{1,60}$/;

/**
 * A requests.list call as the gateway runs it. The caller is another service, but the payload still
 * crosses the network: every field is checked here, and a bad one is invalid_request naming it.
 */
export function parseListRequestLogCall(p: unknown): { call: ListRequestLogCall; cursor: RequestLogCursor | null } {
  const q = (p ?? {}) as Record<string, unknown>;
  const issues: ErrorDetail[] = [];
  const text = (field: string, value: unknown, check: (s: string) => boolean): string | null => {
    if (value === null || value === undefined || value === '') return null;
    if (typeof value === 'string' && value.length <= MAX_FILTER && check(value)) return value;
    issues.push({ field, issue: 'is not valid' });
    return null;
  };
  const appId = text('appId', q.appId, (s) => /^app_[0-9A-Za-z]+$/.test(s));
  if (!appId && (q.appId === undefined || q.appId === null || q.appId === '')) issues.push({ field: 'appId', issue: 'is required' });
  const statusClass = text('statusClass', q.statusClass, (s) => REQUEST_STATUS_CLASSES.includes(s as RequestStatusClass)) as RequestStatusClass | null;
  const path = text('path', q.path, (s) => !/[\u0000-\u001f\s?#]/.test(s));
  const pathMatch = q.pathMatch === undefined || q.pathMatch === 'prefix' ? 'prefix' : q.pathMatch === 'exact' ? 'exact' : null;
  if (!pathMatch) issues.push({ field: 'pathMatch', issue: 'must be prefix or exact' });
  const keyPrefix = text('keyPrefix', q.keyPrefix, (s) => KEY_PREFIX.test(s));
  const limit = q.limit === undefined ? 50 : q.limit;
  if (!Number.isSafeInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_PAGE) issues.push({ field: 'limit', issue: `must be 1 to ${MAX_PAGE}` });
  const rawCursor = text('cursor', q.cursor, () => true);
  const cursor = rawCursor === null ? null : decodeRequestLogCursor(rawCursor);
  if (rawCursor !== null && !cursor) issues.push({ field: 'cursor', issue: 'is not a cursor from a previous page' });
  if (issues.length > 0) throw DomainError.invalid(issues);
  return {
    call: { appId: appId!, statusClass, path, pathMatch: pathMatch!, keyPrefix, limit: limit as number, cursor: rawCursor },
    cursor,
  };
}

/** A requests.get call: the app and a request id of the form the gateway gives. */
export function parseGetRequestLogCall(p: unknown): { appId: string; requestId: string } {
  const q = (p ?? {}) as Record<string, unknown>;
  if (typeof q.appId !== 'string' || !/^app_[0-9A-Za-z]+$/.test(q.appId)) throw DomainError.invalid([{ field: 'appId', issue: 'is required' }]);
  // Anything that cannot be a request id is not one of the app's requests.
  if (typeof q.requestId !== 'string' || !REQUEST_ID.test(q.requestId)) throw new DomainError('not_found', 'No such request.');
  return { appId: q.appId, requestId: q.requestId };
}

/** Opaque to the console: the time and request id of the last row shown. */
export function encodeRequestLogCursor(cursor: RequestLogCursor): string {
  return Buffer.from(JSON.stringify([1, cursor.at, cursor.requestId])).toString('base64url');
}

export function decodeRequestLogCursor(raw: string): RequestLogCursor | null {
  try {
    const parts: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (!Array.isArray(parts) || parts.length !== 3 || parts[0] !== 1) return null;
    const [, at, requestId] = parts as unknown[];
    if (typeof at !== 'string' || Number.isNaN(Date.parse(at)) || typeof requestId !== 'string' || !REQUEST_ID.test(requestId)) return null;
    return { at: new Date(at).toISOString(), requestId };
  } catch {
    return null;
  }
}
