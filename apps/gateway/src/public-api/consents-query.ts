import { CONSENT_STATUSES, type ConsentStatus } from '#platform/contracts';
import { readQuery, type QuerySpec } from '../http/query-params';

/** D15: GET /consents page size. */
export const CONSENTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** GET /consents' parameters (spec; D15): what the parser reads and the document shows. */
export const CONSENTS_QUERY: QuerySpec = {
  refuseUnknown: false,
  params: [
    { name: 'status', kind: 'enum', values: CONSENT_STATUSES, description: 'Only consents with this status.' },
    { name: 'limit', kind: 'limit', ...CONSENTS_LIMIT, description: 'Page size.' },
    {
      name: 'cursor',
      kind: 'string',
      minLength: 1,
      maxLength: 512,
      issue: 'is not a cursor from a previous page',
      description: 'nextCursor of the previous page.',
    },
  ],
};

export interface ConsentsQuery {
  status: ConsentStatus | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /consents' query, listing every bad parameter at once (400 invalid_request). */
export function parseConsentsQuery(query: URLSearchParams): ConsentsQuery {
  const q = readQuery(CONSENTS_QUERY, query);
  return { status: q.status as ConsentStatus | null, limit: q.limit as number, cursor: q.cursor as string | null };
}
