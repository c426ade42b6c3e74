import { GroupCommit, type GroupOutcome } from './group-commit';

/** A batch function whose batches finish only when the test says so. */
function controlledApply() {
  const batches: { items: number[]; finish: (outcomes?: GroupOutcome<string>[] | Error) => void }[] = [];
  const apply = (items: number[]) =>
    new Promise<GroupOutcome<string>[]>((resolve, reject) => {
      batches.push({
        items,
        finish: (outcomes) => (outcomes instanceof Error ? reject(outcomes) : resolve(outcomes ?? items.map((i) => ({ ok: true, value: `done ${i}` })))),
      });
    });
  return { batches, apply };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('runs an item alone at once when nothing is running', async () => {
    const { batches, apply } = controlledApply();
    const group = new GroupCommit(apply, { maxBatch: 10, maxConcurrent: 1 });
    const result = group.submit(1);
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    batches[0].finish();
    await expect(result).resolves.toBe('done 1');
  });

  it('gathers what arrives while a batch runs into the next batch, up to maxBatch', async () => {
    const { batches, apply } = controlledApply();
    const group = new GroupCommit(apply, { maxBatch: 3, maxConcurrent: 1 });
    const results = [1, 2, 3, 4, 5, 6].map((i) => group.submit(i));
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    batches[0].finish();
    await settle();
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    batches[1].finish();
    await settle();
    expect(batches[2].items).toEqual([5, 6]);
    batches[2].finish();
    await expect(Promise.all(results)).resolves.toEqual(['done 1', 'done 2', 'done 3', 'done 4', 'done 5', 'done 6']);
  });

  it('runs up to maxConcurrent batches at once', async () => {
    const { batches, apply } = controlledApply();
    const group = new GroupCommit(apply, { maxBatch: 10, maxConcurrent: 2 });
    const results = [1, 2, 3].map((i) => group.submit(i));
    expect(batches.map((b) => b.items)).toEqual([[1], [2]]);
    batches[1].finish();
    await settle();
    expect(batches.map((b) => b.items)).toEqual([[1], [2], [3]]);
    batches[0].finish();
    batches[2].finish();
    await expect(Promise.all(results)).resolves.toEqual(['done 1', 'done 2', 'done 3']);
  });

  it('gives each item its own outcome', async () => {
    const { batches, apply } = controlledApply();
    const group = new GroupCommit(apply, { maxBatch: 10, maxConcurrent: 1 });
    const first = group.submit(0);
    const results = Promise.allSettled([1, 2].map((i) => group.submit(i)));
    batches[0].finish();
    await settle();
    const refusal = new Error('refused two');
    batches[1].finish([
      { ok: true, value: 'one' },
      { ok: false, error: refusal },
    ]);
    await first;
    expect(await results).toEqual([
      { status: 'fulfilled', value: 'one' },
      { status: 'rejected', reason: refusal },
    ]);
  });

  it('retries a failed batch item by item, so one bad item fails only its caller', async () => {
    const seen: number[][] = [];
    const group = new GroupCommit<number, string>(
      async (items) => {
        seen.push(items);
        if (items.includes(2)) throw new Error('item 2 breaks the batch');
        return items.map((i) => ({ ok: true, value: `done ${i}` }));
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const blocker = group.submit(0);
    const results = Promise.allSettled([1, 2, 3].map((i) => group.submit(i)));
    await blocker;
    expect((await results).map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      'done 1',
      'item 2 breaks the batch',
      'done 3',
    ]);
    expect(seen).toEqual([[0], [1, 2, 3], [1], [2], [3]]);
  });

  it('rejects when the batch answers the wrong number of outcomes', async () => {
    const group = new GroupCommit<number, string>(async () => [], { maxBatch: 10, maxConcurrent: 1 });
    await expect(group.submit(1)).rejects.toThrow('a batch of 1 answered 0 outcomes');
  });
});
