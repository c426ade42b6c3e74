import { SystemClock, TestClock } from './clock';

describe('TestClock', () => {
  it('moves only forward and tells its listeners each time it does', () => {
    const clock = new TestClock();
    let calls = 0;
    clock.onAdvance(() => calls++);
    clock.setOffset(60_000);
    expect(clock.offset).toBe(60_000);
    clock.setOffset(30_000);
    clock.setOffset(60_000);
    expect(clock.offset).toBe(60_000);
    expect(calls).toBe(1);
    clock.setOffset(120_000);
    expect(calls).toBe(2);
    expect(clock.nowMs() - Date.now()).toBeGreaterThanOrEqual(119_000);
  });

  it('the system clock accepts listeners and never calls them', () => {
    const clock = new SystemClock();
    clock.onAdvance(() => {
      throw new Error('the system clock never jumps');
    });
    expect(Math.abs(clock.nowMs() - Date.now())).toBeLessThan(1000);
  });
});
