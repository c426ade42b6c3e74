import { MAX_HELD_SPREAD } from './delivery.decider';
import { heldSpread } from './delivery-results';

describe('the spread of held retries', () => {
  it('is the same for the same delivery and attempt, and within [0, MAX_HELD_SPREAD)', () => {
    expect(heldSpread('wd_01JD0000000000000000000000', 3)).toBe(heldSpread('wd_01JD0000000000000000000000', 3));
    const spreads = Array.from({ length: 2000 }, (_, i) => heldSpread(`wd_01JD${String(i).padStart(22, '0')}`, 1 + (i % 7)));
    expect(Math.min(...spreads)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...spreads)).toBeLessThan(MAX_HELD_SPREAD);
  });

  it('spreads deliveries held together over the whole range', () => {
    const spreads = Array.from({ length: 2000 }, (_, i) => heldSpread(`wd_01JD${String(i).padStart(22, '0')}`, 2));
    const tenths = new Set(spreads.map((s) => Math.floor((s / MAX_HELD_SPREAD) * 10)));
    expect(tenths.size).toBe(10);
  });
});
