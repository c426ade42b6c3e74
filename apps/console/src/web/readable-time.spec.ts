import { exactUtc, readableText, readableTime, readableTimeOr } from './readable-time';

const NOW = new Date('2026-05-14T15:30:00.000Z');
const at = (iso: string) => new Date(iso);

describe('readableText', () => {
  it.each([
    ['2026-05-14T15:29:31.000Z', 'just now'],
    ['2026-05-14T15:30:20.000Z', 'just now'],
    ['2026-05-14T15:29:00.000Z', '1 minute ago'],
    ['2026-05-14T15:27:00.000Z', '3 minutes ago'],
    ['2026-05-14T14:31:00.000Z', '59 minutes ago'],
    ['2026-05-14T14:30:00.000Z', '1 hour ago'],
    ['2026-05-14T10:00:00.000Z', '5 hours ago'],
    ['2026-05-14T15:45:00.000Z', 'in 15 minutes'],
    ['2026-05-14T18:30:00.000Z', 'in 3 hours'],
    ['2026-05-14T09:05:00.000Z', 'today 09:05 UTC'],
    ['2026-05-14T23:59:00.000Z', 'today 23:59 UTC'],
    ['2026-05-13T14:05:00.000Z', 'yesterday 14:05 UTC'],
    ['2026-05-13T00:00:00.000Z', 'yesterday 00:00 UTC'],
    ['2026-05-15T09:00:00.000Z', 'tomorrow 09:00 UTC'],
    ['2026-05-12T23:59:00.000Z', '12 May, 23:59 UTC'],
    ['2026-01-03T08:00:00.000Z', '3 Jan, 08:00 UTC'],
    ['2026-06-21T00:00:00.000Z', '21 Jun, 00:00 UTC'],
    ['2025-12-31T23:00:00.000Z', '31 Dec 2025'],
    ['2027-02-01T12:00:00.000Z', '1 Feb 2027'],
  ])('%s reads "%s" at 2026-05-14 15:30 UTC', (iso, expected) => {
    expect(readableText(at(iso), NOW)).toBe(expected);
  });

  it('reads yesterday just after midnight, minutes before it was today', () => {
    const justAfterMidnight = at('2026-05-15T00:10:00.000Z');
    expect(readableText(at('2026-05-14T17:00:00.000Z'), justAfterMidnight)).toBe('yesterday 17:00 UTC');
    expect(readableText(at('2026-05-15T00:02:00.000Z'), justAfterMidnight)).toBe('8 minutes ago');
  });
});

describe('readableTime', () => {
  it('is a <time> with the exact moment in datetime and, in UTC, in its title', () => {
    expect(readableTime('2026-05-13T14:05:07.123Z', NOW).value).toBe(
      '<time datetime="2026-05-13T14:05:07.123Z" title="2026-05-13 14:05:07.123 UTC">yesterday 14:05 UTC</time>',
    );
    expect(exactUtc(at('2026-01-02T03:04:05.006Z'))).toBe('2026-01-02 03:04:05.006 UTC');
  });

  it('says what stands for a missing moment', () => {
    expect(readableTimeOr(null, NOW, 'never')).toBe('never');
    expect(String(readableTimeOr('2026-05-14T15:27:00.000Z', NOW, 'never'))).toContain('3 minutes ago');
  });
});
