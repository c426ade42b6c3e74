import { CONSENT_STATUSES, type ConsentStatus, type ErrorDetail } from '@platform/contracts';
import { DomainError } from '@platform/errors';

/** D15: GET /consents page size. */
export const CONSENTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

export interface ConsentsQuery {
  status: ConsentStatus | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /consents' query, listing every bad parameter at once (400 invalid_request). */
export function parseConsentsQuery(query: URLSearchParams): ConsentsQuery {
  const details: ErrorDetail[] = [];
  const single = (name: string): string | null => {
    const values = query.getAll(name);
    if (values.length > 1) details.push({ field: name, issue: 'must be given at most once' });
    return values.length > 0 ? values[0] : null;
  };
  const rawStatus = single('status');
  const rawLimit = single('limit');
  const rawCursor = single('cursor');

  let status: ConsentStatus | null = null;
  if (rawStatus !== null) {
    if (CONSENT_STATUSES.includes(rawStatus as ConsentStatus)) status = rawStatus as ConsentStatus;
    else details.push({ field: 'status', issue: `must be one of ${CONSENT_STATUSES.join(', ')}` });
  }
  let limit: number = CONSENTS_LIMIT.default;
  if (rawLimit !== null) {
    const n = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (Number.isInteger(n) && n >= CONSENTS_LIMIT.min && n <= CONSENTS_LIMIT.max) limit = n;
    else details.push({ field: 'limit', issue: `must be an integer from ${CONSENTS_LIMIT.min} to ${CONSENTS_LIMIT.max}` });
  }
  let cursor: string | null = null;
  if (rawCursor !== null) {
    if (rawCursor.length >= 1 && rawCursor.length <= 512) cursor = rawCursor;
    else details.push({ field: 'cursor', issue: 'is not a cursor from a previous page' });
  }
  if (details.length > 0) throw DomainError.invalid(details);
  return { status, limit, cursor };
}
