import { defaultSince, sinceFromForm } from './recover-since';

describe('the recover form’s since (UTC)', () => {
  it('reads the field’s minutes or seconds as a UTC instant', () => {
    expect(sinceFromForm('2026-10-14T09:30')).toBe('2026-10-14T09:30:00.000Z');
    expect(sinceFromForm(' 2026-10-14T09:30:15 ')).toBe('2026-10-14T09:30:15.000Z');
  });

  it('refuses what is not such a time', () => {
    for (const value of ['', 'yesterday', '2026-10-14', '2026-02-30T09:30', '2026-10-14T25:00', '2026-10-14T09:30Z', undefined, ['2026-10-14T09:30']])
      expect(sinceFromForm(value)).toBeNull();
  });

  it('defaults to 24 hours ago, to the minute', () => expect(defaultSince(new Date('2026-10-14T09:30:42.123Z'))).toBe('2026-10-13T09:30'));
});
