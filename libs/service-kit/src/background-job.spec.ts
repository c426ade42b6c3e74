import { TestClock } from '#platform/clock';
import { BackgroundJob } from './background-job';

describe('BackgroundJob', () => {
  it('never overlaps runs, and a call during a run makes it go round once more', async () => {
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    let release: () => void = () => undefined;
    const runner = new BackgroundJob('test job', async () => {
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

  it('runs when the test clock jumps; a failing run does not stop later ones', async () => {
    const clock = new TestClock();
    let runs = 0;
    const job = new BackgroundJob('test job', async () => {
      runs++;
      if (runs === 1) throw new Error('first run fails');
    });
    job.start(3_600_000, clock);
    try {
      clock.setOffset(60_000);
      await job.run();
      clock.setOffset(120_000);
      await job.run();
      expect(runs).toBeGreaterThanOrEqual(3);
    } finally {
      job.stop();
    }
  });
});
