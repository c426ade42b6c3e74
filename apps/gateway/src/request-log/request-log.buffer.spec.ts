import { RequestLogBuffer, type RequestLogDropReason } from './request-log.buffer';

type Entry = { appId: string; n: number };

/** A buffer whose writes are held until the test lets them go, with what it wrote and dropped. */
function harness(options: { capacity?: number; maxPerApp?: number; batchSize?: number; failWrites?: boolean } = {}) {
  const batches: Entry[][] = [];
  const dropped: Record<RequestLogDropReason, number> = { full: 0, app_share: 0, write_failed: 0 };
  const held: Array<() => void> = [];
  let written = 0;
  let failures = 0;
  let holdWrites = false;
  const buffer = new RequestLogBuffer<Entry>({
    capacity: options.capacity ?? 10,
    maxPerApp: options.maxPerApp ?? 10,
    batchSize: options.batchSize ?? 4,
    write: async (batch) => {
      if (holdWrites) await new Promise<void>((resolve) => held.push(resolve));
      if (options.failWrites) throw new Error('connection refused');
      batches.push(batch);
    },
    written: (count) => (written += count),
    dropped: (reason, count) => (dropped[reason] += count),
    failed: () => failures++,
  });
  return {
    buffer,
    batches,
    dropped,
    held,
    hold: () => (holdWrites = true),
    get written() {
      return written;
    },
    get failures() {
      return failures;
    },
  };
}

const entries = (count: number, appId = 'app_a', from = 0): Entry[] => Array.from({ length: count }, (_, i) => ({ appId, n: from + i }));
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('request log buffer', () => {
  it('writes what it holds in batches of at most batchSize, in order, one INSERT each', async () => {
    const h = harness({ batchSize: 4, capacity: 100 });
    for (const entry of entries(10)) expect(h.buffer.push(entry)).toBe(true);
    await h.buffer.flush();
    expect(h.batches.map((b) => b.map((e) => e.n))).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(h.written).toBe(10);
    expect(h.buffer.size).toBe(0);
  });

  it('starts a flush by itself once a batch is full, on a later turn, not inside push', async () => {
    const h = harness({ batchSize: 3, capacity: 100 });
    for (const entry of entries(3)) h.buffer.push(entry);
    expect(h.batches).toEqual([]);
    await settle();
    await h.buffer.flush();
    expect(h.batches).toEqual([entries(3)]);
  });

  it('is bounded: past its capacity (held and being written together) entries are dropped and counted, never waited for', async () => {
    const h = harness({ capacity: 5, batchSize: 2 });
    h.hold();
    for (const entry of entries(3)) h.buffer.push(entry);
    const flushing = h.buffer.flush();
    // Three are being written, so two more fit.
    expect(entries(4, 'app_a', 3).map((e) => h.buffer.push(e))).toEqual([true, true, false, false]);
    expect(h.dropped.full).toBe(2);
    expect(h.buffer.size).toBe(5);
    while (h.held.length > 0 || h.buffer.size > 0) {
      h.held.shift()?.();
      await settle();
    }
    await flushing;
    expect(h.batches.flat().map((e) => e.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps one app within its share, so its flood leaves room for the others', async () => {
    const h = harness({ capacity: 10, maxPerApp: 3, batchSize: 100 });
    expect(entries(5, 'app_flood').map((e) => h.buffer.push(e))).toEqual([true, true, true, false, false]);
    expect(h.buffer.push({ appId: 'app_quiet', n: 99 })).toBe(true);
    expect(h.dropped.app_share).toBe(2);
    await h.buffer.flush();
    // Written, the share is free again.
    expect(h.buffer.push({ appId: 'app_flood', n: 100 })).toBe(true);
  });

  it('drops and counts what a failed write took, and takes new entries after', async () => {
    const h = harness({ capacity: 10, batchSize: 2, failWrites: true });
    for (const entry of entries(5)) h.buffer.push(entry);
    await h.buffer.flush();
    expect(h.dropped.write_failed).toBe(5);
    expect(h.failures).toBe(1);
    expect(h.written).toBe(0);
    expect(h.buffer.size).toBe(0);
    expect(h.buffer.push({ appId: 'app_a', n: 9 })).toBe(true);
  });

  it('writes what is left on close', async () => {
    const h = harness({ batchSize: 100 });
    h.buffer.start(60_000);
    for (const entry of entries(2)) h.buffer.push(entry);
    await h.buffer.close();
    expect(h.batches).toEqual([entries(2)]);
  });
});
