import { isDomainError } from '#platform/errors';
import { utcDayRange } from './utc-day-range';

describe('a range of UTC days asked for', () => {
  it('gives the midnights of both days, and refuses a reversed, too long or malformed range naming fromDay', () => {
    expect(utcDayRange('2026-11-05', '2026-12-04', 92)).toEqual({ from: new Date('2026-11-05T00:00:00Z'), to: new Date('2026-12-04T00:00:00Z') });
    for (const [from, to] of [
      ['2026-12-05', '2026-12-04'],
      ['2026-01-01', '2026-12-04'],
      ['yesterday', '2026-12-04'],
      ['2026-12-04', '2026-12-4'],
    ]) {
      let error: unknown;
      try {
        utcDayRange(from, to, 92);
      } catch (e) {
        error = e;
      }
      expect(isDomainError(error) && error.code).toBe('invalid_request');
    }
  });
});
