/** A partition's share of a fetch response, as kafkajs' consumer hands it on (`consumer/batch.js`). */
export interface FetchedBatch {
  /** Every record the broker returned for the partition, before kafkajs filters any out. */
  rawMessages: unknown[];
}

type Fetch<B extends FetchedBatch> = (this: unknown, nodeId: number) => Promise<B[]>;

/** kafkajs' ConsumerGroup.fetch, answering only the partitions the broker returned records for. */
export function withoutRecordlessBatches<B extends FetchedBatch>(fetch: Fetch<B>): Fetch<B> {
  return async function fetchWithRecords(this: unknown, nodeId: number) {
    const batches = await fetch.call(this, nodeId);
    return batches.filter((batch) => batch.rawMessages.length > 0);
  };
}

let patched = false;

/**
 * kafkajs 2.2.4 turns every partition of a fetch response into a batch, including those the broker
 * had nothing for, and runs each through its worker queue: a promise, the partition's assignment
 * bookkeeping, and `onBatch` computing the batch's offset lag with 64-bit arithmetic on strings,
 * only to return at `batch.isEmpty()` after a heartbeat. A gateway replica reads all six
 * partitions of every service's reply topic, so at 500 sends/s that was some 3 000 empty batches a
 * second, a fifth of what the gateway allocated.
 *
 * This drops the batches that carry no record at all before they reach the queue. A batch whose
 * records kafkajs filters out (control records, aborted transactions, records before the fetched
 * offset) still carries raw records and is kept, so kafkajs still resolves its offset. When no
 * batch is left the runner heartbeats, as it does for an empty fetch; a heartbeat was all an empty
 * batch did. Applied once per process, before any consumer runs.
 */
export function skipEmptyFetchedPartitions(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup') as { prototype: { fetch: Fetch<FetchedBatch> } };
  ConsumerGroup.prototype.fetch = withoutRecordlessBatches(ConsumerGroup.prototype.fetch);
}
