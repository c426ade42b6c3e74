import { DomainError } from '#platform/errors';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 24 * 3600 * 1000;

/**
 * The midnights (UTC) of a range of days a caller asked for by `YYYY-MM-DD`, `fromDay` at most
 * `maxDays` before `toDay`; invalid_request naming `fromDay` otherwise. For reads of daily counts.
 */
export function utcDayRange(fromDay: string, toDay: string, maxDays: number): { from: Date; to: Date } {
  const from = DAY.test(fromDay) ? new Date(`${fromDay}T00:00:00Z`) : new Date(NaN);
  const to = DAY.test(toDay) ? new Date(`${toDay}T00:00:00Z`) : new Date(NaN);
  const days = (to.getTime() - from.getTime()) / DAY_MS;
  if (!(days >= 0 && days < maxDays)) {
    throw DomainError.invalid([{ field: 'fromDay', issue: `must be a UTC day (YYYY-MM-DD) at most ${maxDays} days before toDay` }]);
  }
  return { from, to };
}
