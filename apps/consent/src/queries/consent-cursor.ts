import { CONSENT_STATUSES, type ConsentStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';

/**
 * Position in a GET /consents listing: the snapshot sequence it reads at, the last row returned
 * (updatedAt desc, appUserId asc), the status filter it was made for, and when the listing started.
 * Opaque to clients (base64url JSON); the app comes from the API key, never from the cursor.
 */
export interface ConsentCursor {
  snapshot: number;
  updatedAt: string;
  appUserId: string;
  status: ConsentStatus | null;
  startedAtMs: number;
}

/** Superseded versions are kept this long, so a listing can be continued for this long. */
export const CURSOR_LIFETIME_MS = 24 * 3600 * 1000;

export function encodeConsentCursor(c: ConsentCursor): string {
  return Buffer.from(JSON.stringify([1, c.snapshot, c.updatedAt, c.appUserId, c.status, c.startedAtMs])).toString('base64url');
}

const invalid = (issue: string) => DomainError.invalid([{ field: 'cursor', issue }]);

/** Decodes a cursor given with `status`; refuses anything it did not make, for another filter, or too old. */
export function decodeConsentCursor(raw: string, status: ConsentStatus | null, nowMs: number): ConsentCursor {
  let parts: unknown;
  try {
    parts = raw.length <= 512 ? JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) : null;
  } catch {
    parts = null;
  }
  if (!Array.isArray(parts) || parts.length !== 6 || parts[0] !== 1) throw invalid('is not a cursor from a previous page');
  const [, snapshot, updatedAt, appUserId, cursorStatus, startedAtMs] = parts as unknown[];
  if (
    !Number.isSafeInteger(snapshot) ||
    (snapshot as number) < 0 ||
    typeof updatedAt !== 'string' ||
    Number.isNaN(Date.parse(updatedAt)) ||
    typeof appUserId !== 'string' ||
    !(cursorStatus === null || CONSENT_STATUSES.includes(cursorStatus as ConsentStatus)) ||
    !Number.isSafeInteger(startedAtMs)
  ) {
    throw invalid('is not a cursor from a previous page');
  }
  if (cursorStatus !== status) throw invalid('was made for another status filter; keep the same filter while paging');
  if (nowMs - (startedAtMs as number) > CURSOR_LIFETIME_MS) throw invalid('has expired; start the listing again');
  return { snapshot: snapshot as number, updatedAt: new Date(updatedAt).toISOString(), appUserId, status, startedAtMs: startedAtMs as number };
}
