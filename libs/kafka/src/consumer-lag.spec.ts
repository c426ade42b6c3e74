import { partitionLags, type LagInputs } from './consumer-lag';

const watermarks = (entries: Record<string, [low: number, high: number][]>): LagInputs['watermarks'] =>
  new Map(
    Object.entries(entries).map(([topic, parts]) => [topic, parts.map(([low, high], partition) => ({ partition, low: String(low), high: String(high) }))]),
  );

describe('partitionLags', () => {
  it('is the high watermark minus the committed offset, for the assigned partitions only', () => {
    const lags = partitionLags(
      { a: [0, 2], b: [1] },
      {
        committed: [
          {
            topic: 'a',
            partitions: [
              { partition: 0, offset: '7' },
              { partition: 1, offset: '3' },
              { partition: 2, offset: '10' },
            ],
          },
          { topic: 'b', partitions: [{ partition: 1, offset: '4' }] },
        ],
        watermarks: watermarks({
          a: [
            [0, 10],
            [0, 9],
            [0, 10],
          ],
          b: [
            [0, 0],
            [0, 5],
          ],
        }),
      },
    );
    expect(lags).toEqual([
      { topic: 'a', partition: 0, lag: 3 },
      { topic: 'a', partition: 2, lag: 0 },
      { topic: 'b', partition: 1, lag: 1 },
    ]);
  });

  it('counts from the low watermark when nothing was committed yet or the committed messages were deleted', () => {
    const lags = partitionLags(
      { t: [0, 1, 2] },
      {
        committed: [
          {
            topic: 't',
            partitions: [
              { partition: 0, offset: '-1' },
              { partition: 1, offset: '2' },
            ],
          },
        ],
        watermarks: watermarks({
          t: [
            [4, 10],
            [5, 8],
            [3, 3],
          ],
        }),
      },
    );
    expect(lags).toEqual([
      { topic: 't', partition: 0, lag: 6 },
      { topic: 't', partition: 1, lag: 3 },
      { topic: 't', partition: 2, lag: 0 },
    ]);
  });

  it('leaves out partitions whose watermarks are unknown and never goes below zero', () => {
    const lags = partitionLags(
      { t: [0, 5] },
      { committed: [{ topic: 't', partitions: [{ partition: 0, offset: '12' }] }], watermarks: watermarks({ t: [[0, 10]] }) },
    );
    expect(lags).toEqual([{ topic: 't', partition: 0, lag: 0 }]);
  });

  it('is empty without an assignment', () => {
    expect(partitionLags({}, { committed: [], watermarks: new Map() })).toEqual([]);
  });
});
