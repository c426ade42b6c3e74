import { DomainError } from '#platform/errors';
import { checkJsonLimits, MAX_JSON_DEPTH } from './json-limits';

const nest = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
const issueOf = (body: unknown): string | null => {
  try {
    checkJsonLimits(body);
    return null;
  } catch (error) {
    return (error as DomainError).details?.[0]?.issue ?? null;
  }
};

describe('checkJsonLimits', () => {
  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more`, () => {
    expect(issueOf(nest(MAX_JSON_DEPTH))).toBeNull();
    expect(issueOf(nest(MAX_JSON_DEPTH + 1))).toMatch(/deeper than 32/);
  });
  it('walks 500 000 levels without recursing', () => {
    expect(issueOf(nest(500_000))).toMatch(/deeper than/);
  });
  it('refuses wide objects and arrays and too many values', () => {
    expect(issueOf({ a: new Array(1001).fill(0) })).toMatch(/at most 1000 items/);
    expect(issueOf(Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i])))).toMatch(/at most 1000 members/);
    expect(issueOf(Array.from({ length: 20 }, () => new Array(600).fill(0)))).toMatch(/at most 10000 values/);
  });
  it('lets scalars and ordinary bodies through', () => {
    expect(issueOf('x')).toBeNull();
    expect(issueOf({ to: { appUserId: 'u_1' }, type: 'text', events: ['a', 'b'] })).toBeNull();
  });
});
