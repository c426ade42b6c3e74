import { derivedId, idTimeFloor, idTimeMs, newId } from './ids';

const T = Date.parse('2026-10-14T09:30:00.000Z');

describe('time ranges of time-ordered ids', () => {
  it('reads the millisecond an id was made at', () => {
    expect(idTimeMs(newId('evt_', T), 'evt_')).toBe(T);
    expect(idTimeMs(derivedId('evt_', T + 1, 'seed'), 'evt_')).toBe(T + 1);
  });

  it('is null for what is not such an id', () => {
    expect(idTimeMs('wd_01JD3QD6K9M2P5S8V1Y4B7E0GH', 'evt_')).toBeNull();
    expect(idTimeMs('evt_short', 'evt_')).toBeNull();
    expect(idTimeMs('evt_01JD3QD6K9M2P5S8V1Y4B7E0Gu', 'evt_')).toBeNull();
  });

  it('puts every id made at or after a time at or after its floor, and every earlier one before it', () => {
    const floor = idTimeFloor('evt_', T);
    for (let i = 0; i < 50; i++) {
      expect(newId('evt_', T) >= floor).toBe(true);
      expect(derivedId('evt_', T, `at-${i}`) >= floor).toBe(true);
      expect(newId('evt_', T + 1) >= floor).toBe(true);
      expect(newId('evt_', T - 1) < floor).toBe(true);
      expect(derivedId('evt_', T - 1, `before-${i}`) < floor).toBe(true);
    }
    expect(idTimeMs(floor, 'evt_')).toBe(T);
  });
});
