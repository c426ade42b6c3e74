import { DomainError } from '#platform/errors';
import { parseDeliveriesQuery } from './webhook-routes';

const parse = (qs: string) => parseDeliveriesQuery(new URLSearchParams(qs));
const fieldsOf = (qs: string): string[] => {
  try {
    parse(qs);
  } catch (error) {
    return (error as DomainError).details!.map((d) => d.field).sort();
  }
  throw new Error('expected a refusal');
};

describe('GET /webhook-deliveries query (D23)', () => {
  it('defaults: every status, every endpoint, 20 per page, first page', () =>
    expect(parse('')).toEqual({ status: null, subscriptionId: null, limit: 20, cursor: null }));

  it('reads every parameter', () =>
    expect(parse('status=failed&subscriptionId=we_1&limit=100&cursor=d2Rf')).toEqual({ status: 'failed', subscriptionId: 'we_1', limit: 100, cursor: 'd2Rf' }));

  it('lists every bad parameter at once', () => {
    expect(fieldsOf('status=done&limit=0&cursor=%25%25&subscriptionId=' + 'x'.repeat(65))).toEqual(['cursor', 'limit', 'status', 'subscriptionId']);
    expect(fieldsOf('limit=101')).toEqual(['limit']);
    expect(fieldsOf('limit=1.5')).toEqual(['limit']);
    expect(fieldsOf('status=pending&status=failed')).toEqual(['status']);
    expect(fieldsOf('sort=asc')).toEqual(['sort']);
  });
});
