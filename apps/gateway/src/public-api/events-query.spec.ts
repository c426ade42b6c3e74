import { DomainError } from '#platform/errors';
import { parseEventsQuery } from './event-routes';

const parse = (qs: string) => parseEventsQuery(new URLSearchParams(qs));
const fieldsOf = (qs: string): string[] => {
  try {
    parse(qs);
  } catch (error) {
    return (error as DomainError).details!.map((d) => d.field).sort();
  }
  throw new Error('expected a refusal');
};

describe('GET /events query (ADR 0223)', () => {
  it('defaults: every type, no time bounds, 20 per page, first page', () =>
    expect(parse('')).toEqual({ type: null, createdAfter: null, createdBefore: null, limit: 20, cursor: null }));

  it('reads every parameter; times as the instant they name, in UTC', () =>
    expect(parse('type=consent.updated&createdAfter=2026-10-14T11:30:00%2B02:00&createdBefore=2026-10-14T10:00:00.5Z&limit=100&cursor=ZXZ0')).toEqual({
      type: 'consent.updated',
      createdAfter: '2026-10-14T09:30:00.000Z',
      createdBefore: '2026-10-14T10:00:00.500Z',
      limit: 100,
      cursor: 'ZXZ0',
    }));

  it('reads an offset whose + was left unencoded (it arrives as a space)', () =>
    expect(parse('createdAfter=2026-10-14T11:30:00+02:00').createdAfter).toBe('2026-10-14T09:30:00.000Z'));

  it('lists every bad parameter at once', () => {
    expect(fieldsOf('type=webhook.test&createdAfter=yesterday&createdBefore=2026-02-30T00:00:00Z&limit=0&cursor=%25')).toEqual([
      'createdAfter',
      'createdBefore',
      'cursor',
      'limit',
      'type',
    ]);
    expect(fieldsOf('createdAfter=2026-10-14')).toEqual(['createdAfter']);
    expect(fieldsOf('createdAfter=2026-10-14T09:30:00')).toEqual(['createdAfter']);
    expect(fieldsOf('limit=101')).toEqual(['limit']);
    expect(fieldsOf('status=failed')).toEqual(['status']);
  });
});
