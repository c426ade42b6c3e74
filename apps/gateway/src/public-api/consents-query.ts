import { CONSENT_STATUSES, type ConsentStatus } from '@platform/contracts';
import { QueryReader } from '../http/query-reader';

/** D15: GET /consents page size. */
export const CONSENTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

export interface ConsentsQuery {
  status: ConsentStatus | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /consents' query, listing every bad parameter at once (400 invalid_request). */
export function parseConsentsQuery(query: URLSearchParams): ConsentsQuery {
  const reader = new QueryReader(query);
  const status = reader.oneOf<ConsentStatus>('status', CONSENT_STATUSES);
  const limit = reader.limit(CONSENTS_LIMIT);
  const rawCursor = reader.single('cursor');
  let cursor: string | null = null;
  if (rawCursor !== null) {
    if (rawCursor.length >= 1 && rawCursor.length <= 512) cursor = rawCursor;
    else reader.details.push({ field: 'cursor', issue: 'is not a cursor from a previous page' });
  }
  reader.done();
  return { status, limit, cursor };
}
