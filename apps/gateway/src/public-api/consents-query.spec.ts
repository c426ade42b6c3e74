import { DomainError } from '#platform/errors';
import { parseConsentsQuery } from './consents-query';

const parse = (qs: string) => parseConsentsQuery(new URLSearchParams(qs));
function details(qs: string) {
  try {
    parse(qs);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_request');
    return (error as DomainError).details;
  }
  throw new Error(`expected ${qs} to be refused`);
}

describe('GET /consents query', () => {
  it('defaults: no filter, 20 per page, first page', () => expect(parse('')).toEqual({ status: null, limit: 20, cursor: null }));
  it('takes a status, a limit and a cursor', () =>
    expect(parse('status=blocked&limit=100&cursor=abc')).toEqual({ status: 'blocked', limit: 100, cursor: 'abc' }));
  it('accepts the bounds 1 and 100', () => {
    expect(parse('limit=1').limit).toBe(1);
    expect(parse('limit=100').limit).toBe(100);
  });
  it.each(['0', '101', '-1', '1.5', 'ten', '', ' 5', '1e2'])('refuses limit=%s', (limit) =>
    expect(details(`limit=${encodeURIComponent(limit)}`)).toEqual([{ field: 'limit', issue: 'must be an integer from 1 to 100' }]),
  );
  it('refuses an unknown status', () => expect(details('status=pending')?.[0].field).toBe('status'));
  it('refuses an empty cursor', () => expect(details('cursor=')?.[0].field).toBe('cursor'));
  it('refuses a repeated parameter', () => expect(details('limit=5&limit=6')).toEqual([{ field: 'limit', issue: 'must be given at most once' }]));
  it('lists every bad parameter at once', () => expect(details('status=x&limit=0')?.map((d) => d.field)).toEqual(['status', 'limit']));
});
