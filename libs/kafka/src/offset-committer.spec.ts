import { OffsetCommitter, type PartitionOffset } from './offset-committer';

describe('OffsetCommitter', () => {
  let commits: PartitionOffset[][];
  let failNext: boolean;

  const committer = () =>
    new OffsetCommitter({
      everyMs: 500,
      commit: async (offsets) => {
        if (failNext) {
          failNext = false;
          throw new Error('coordinator moved');
        }
        commits.push(offsets);
      },
    });

  beforeEach(() => {
    jest.useFakeTimers();
    commits = [];
    failNext = false;
  });
  afterEach(() => jest.useRealTimers());

  it('commits the offsets handled within the interval in one request, each partition at its next offset', async () => {
    const c = committer();
    c.handled('t', 0, '4');
    c.handled('t', 1, '9');
    c.handled('t', 0, '7');
    await jest.advanceTimersByTimeAsync(499);
    expect(commits).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(commits).toEqual([
      [
        { topic: 't', partition: 0, offset: '8' },
        { topic: 't', partition: 1, offset: '10' },
      ],
    ]);
  });

  it('never moves a partition back: an older offset handled later is ignored', async () => {
    const c = committer();
    c.handled('t', 0, '7');
    c.handled('t', 0, '3');
    await c.flush();
    expect(commits).toEqual([[{ topic: 't', partition: 0, offset: '8' }]]);
  });

  it('sends nothing when nothing was handled', async () => {
    const c = committer();
    await jest.advanceTimersByTimeAsync(2000);
    await c.flush();
    expect(commits).toEqual([]);
  });

  it('keeps a failed commit for the next round, unless a newer offset of the partition came meanwhile', async () => {
    const c = committer();
    c.handled('t', 0, '1');
    c.handled('t', 1, '1');
    failNext = true;
    const failing = c.flush();
    c.handled('t', 1, '5');
    await failing;
    expect(commits).toEqual([]);
    await jest.advanceTimersByTimeAsync(500);
    expect(commits).toEqual([
      [
        { topic: 't', partition: 1, offset: '6' },
        { topic: 't', partition: 0, offset: '2' },
      ],
    ]);
  });

  it('after a rebalance keeps only the partitions still assigned', async () => {
    const c = committer();
    c.handled('a', 0, '1');
    c.handled('a', 1, '1');
    c.handled('b', 0, '1');
    c.retain({ a: [1] });
    await c.flush();
    expect(commits).toEqual([[{ topic: 'a', partition: 1, offset: '2' }]]);
  });

  it('forgets everything on clear (a crashed consumer cannot commit)', async () => {
    const c = committer();
    c.handled('t', 0, '1');
    c.clear();
    await jest.advanceTimersByTimeAsync(1000);
    expect(commits).toEqual([]);
  });
});
