import { FetchPacer } from './fetch-pacer';

/** Batches of `size` on one partition, each taking `handleMs`, the next one arriving `gapMs` after the partition is ready again. */
function run(pacer: FetchPacer, batches: number, { size = 2, handleMs = 3, gapMs }: { size?: number; handleMs?: number; gapMs: number }, start = 0) {
  let now = start;
  const waits: number[] = [];
  for (let i = 0; i < batches; i++) {
    const wait = pacer.afterBatch('t:0', size, now, now + handleMs);
    waits.push(wait);
    now += handleMs + wait + gapMs;
  }
  return { waits, now };
}

describe('FetchPacer', () => {
  it('never makes a lightly loaded partition wait: its events go through at once', () => {
    // 100 events a second over six partitions: one every 60 ms on each.
    expect(run(new FetchPacer(50, 100), 200, { size: 1, gapMs: 57 }).waits.every((w) => w === 0)).toBe(true);
  });

  it('paces a busy partition, whose batches come close behind each other', () => {
    // 1 200 events a second, published in bursts about every 20 ms.
    const { waits } = run(new FetchPacer(50, 100), 40, { gapMs: 17 });
    // It takes a few batches for the average to show the load; from then on every small batch is followed by the pace.
    expect(waits.slice(0, 5).every((w) => w === 0)).toBe(true);
    expect(waits.slice(-20)).toEqual(Array(20).fill(50));
  });

  it('counts the gap from the end of its own wait, so a paced partition whose events keep waiting stays paced', () => {
    const pacer = new FetchPacer(50, 100);
    const busy = run(pacer, 40, { gapMs: 0 });
    expect(busy.waits.at(-1)).toBe(50);
    expect(run(pacer, 10, { gapMs: 0 }, busy.now).waits).toEqual(Array(10).fill(50));
  });

  it('stops pacing within two batches once the load goes, and one close pair of events does not start it', () => {
    const pacer = new FetchPacer(50, 100);
    const busy = run(pacer, 40, { gapMs: 1 });
    const quiet = run(pacer, 5, { gapMs: 60 }, busy.now);
    expect(quiet.waits.slice(2)).toEqual([0, 0, 0]);
    const stray = run(pacer, 1, { gapMs: 0 }, quiet.now);
    expect(stray.waits).toEqual([0]);
  });

  it('never waits after a full batch: there is more to apply at once', () => {
    const { waits } = run(new FetchPacer(50, 100), 40, { size: 100, gapMs: 0 });
    expect(waits.every((w) => w === 0)).toBe(true);
  });

  it('keeps each partition to itself', () => {
    const pacer = new FetchPacer(50, 100);
    let now = 0;
    for (let i = 0; i < 40; i++) now += pacer.afterBatch('busy', 2, now, now + 2) + 2;
    expect(pacer.afterBatch('busy', 2, now, now + 2)).toBe(50);
    expect(pacer.afterBatch('quiet', 2, now, now + 2)).toBe(0);
  });
});
