import { CoalescedRuns } from './coalesced-runs';

describe('CoalescedRuns', () => {
  it('never overlaps runs, and a call during a run makes it go round once more', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const runner = new CoalescedRuns(async () => {
      active++;
      runs++;
      maxActive = Math.max(maxActive, active);
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      active--;
    });
    const first = runner.run();
    const second = runner.run();
    const third = runner.run();
    expect(second).toBe(first);
    expect(third).toBe(first);
    release();
    await first;
    expect(runs).toBe(2);
    expect(maxActive).toBe(1);
    await runner.run();
    expect(runs).toBe(3);
  });
});
