/* eslint-disable @typescript-eslint/no-require-imports */
import { skipEmptyFetchedPartitions, withoutRecordlessBatches } from './empty-fetch-batches.patch';

// kafkajs' own Batch, built from a partition of a fetch response as its ConsumerGroup builds it.
const Batch = require('kafkajs/src/consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: Record<string, unknown>,
) => {
  partition: number;
  rawMessages: unknown[];
  isEmpty(): boolean;
  isEmptyDueToFiltering(): boolean;
};

function record(offset: string, isControlRecord = false) {
  return { offset, key: null, value: Buffer.from('{}'), headers: {}, timestamp: '0', attributes: 0, isControlRecord, batchContext: {} };
}

function batch(partition: number, fetchedOffset: string, messages: ReturnType<typeof record>[]) {
  return new Batch('t', fetchedOffset, { partition, highWatermark: '10', errorCode: 0, abortedTransactions: [], messages });
}

describe('kafkajs fetches without their recordless partitions', () => {
  const withRecords = batch(0, '3', [record('3'), record('4')]);
  const recordless = batch(1, '7', []);
  const onlyControlRecord = batch(2, '5', [record('5', true)]);
  const onlyBeforeFetchedOffset = batch(3, '9', [record('8')]);

  it('keeps the partitions that returned records, also those kafkajs filters down to nothing, in order', async () => {
    const fetch = withoutRecordlessBatches(async () => [withRecords, recordless, onlyControlRecord, onlyBeforeFetchedOffset]);
    const kept = await fetch.call(null, 1);
    expect(kept.map((b) => b.partition)).toEqual([0, 2, 3]);
    // kafkajs resolves the offsets of these two itself; they must still reach it.
    expect(onlyControlRecord.isEmptyDueToFiltering()).toBe(true);
    expect(onlyBeforeFetchedOffset.isEmpty()).toBe(true);
    expect(recordless.isEmptyDueToFiltering()).toBe(false);
  });

  it('answers an empty fetch when no partition returned records, and calls the fetch on its own consumer group', async () => {
    const group = { nodeIds: [] as number[] };
    const fetch = withoutRecordlessBatches(async function (this: unknown, nodeId: number) {
      (this as typeof group).nodeIds.push(nodeId);
      return [batch(0, '1', []), batch(1, '1', [])];
    });
    expect(await fetch.call(group, 4)).toEqual([]);
    expect(group.nodeIds).toEqual([4]);
  });

  it('wraps kafkajs’ ConsumerGroup.fetch once, however often it is applied', () => {
    const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: { fetch: unknown } };
    const original = ConsumerGroup.prototype.fetch;
    skipEmptyFetchedPartitions();
    const wrapped = ConsumerGroup.prototype.fetch;
    skipEmptyFetchedPartitions();
    expect(wrapped).not.toBe(original);
    expect(ConsumerGroup.prototype.fetch).toBe(wrapped);
  });
});
