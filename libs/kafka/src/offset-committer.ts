import type { Consumer } from 'kafkajs';

/** A partition's next offset to read, as Kafka's OffsetCommit takes it. */
export interface PartitionOffset {
  topic: string;
  partition: number;
  offset: string;
}

export interface OffsetCommitterOptions {
  /** Sends one OffsetCommit for the given partitions (kafkajs `consumer.commitOffsets`). */
  commit: (offsets: PartitionOffset[]) => Promise<void>;
  /** How long a handled offset may wait for its commit. */
  everyMs: number;
  onError?: (error: unknown) => void;
}

/**
 * Commits handled offsets together, at most once per `everyMs`, instead of kafkajs' OffsetCommit
 * after every batch. At a steady trickle a batch is one event, so per-batch commits cost each
 * consumed event a Kafka request of its own (the broker's work, and a socket write and read in the
 * service), as much as the fetch that brought it. Deferring is only for consumers that may see an
 * event again: an idempotent consumer skips what its inbox holds, a reply reader ignores replies
 * no one waits for. A crash re-delivers at most the last `everyMs` of events.
 */
export class OffsetCommitter {
  private readonly pending = new Map<string, PartitionOffset>();
  private timer: NodeJS.Timeout | null = null;
  private committing: Promise<void> = Promise.resolve();

  constructor(private readonly options: OffsetCommitterOptions) {}

  /**
   * The committer of a kafkajs consumer run with `autoCommit: false`: commits through the consumer,
   * and after each rebalance keeps only the partitions still assigned to it.
   */
  static forConsumer(consumer: Consumer, everyMs: number, onError?: (error: unknown) => void): OffsetCommitter {
    const committer = new OffsetCommitter({ commit: (offsets) => consumer.commitOffsets(offsets), everyMs, onError });
    consumer.on(consumer.events.GROUP_JOIN, (event) => committer.retain(event.payload.memberAssignment));
    return committer;
  }

  /** The message at `offset` and all before it on the partition are handled. */
  handled(topic: string, partition: number, offset: string): void {
    const next = (BigInt(offset) + 1n).toString();
    const key = `${topic}\u0000${partition}`;
    const known = this.pending.get(key);
    if (known && BigInt(known.offset) >= BigInt(next)) return;
    this.pending.set(key, { topic, partition, offset: next });
    this.schedule();
  }

  /** After a rebalance: offsets of partitions this member no longer reads are not its to commit. */
  retain(assignment: Record<string, number[]>): void {
    for (const [key, offset] of this.pending) if (!assignment[offset.topic]?.includes(offset.partition)) this.pending.delete(key);
  }

  /** Commits what is pending now (before a rebalance or a stop); resolves when done, never rejects. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return this.committing;
    const offsets = [...this.pending.values()];
    this.pending.clear();
    // Commits go out one after the other, so an older commit can never land after a newer one.
    this.committing = this.committing.then(() =>
      this.options.commit(offsets).catch((error: unknown) => {
        this.options.onError?.(error);
        // Kept for the next round unless a newer offset of the partition came meanwhile.
        for (const offset of offsets) {
          const key = `${offset.topic}\u0000${offset.partition}`;
          if (!this.pending.has(key)) this.pending.set(key, offset);
        }
        this.schedule();
      }),
    );
    return this.committing;
  }

  private schedule(): void {
    if (this.timer || this.pending.size === 0) return;
    this.timer = setTimeout(() => void this.flush(), this.options.everyMs);
    this.timer.unref();
  }

  /** Forgets what is pending (the partitions are gone, or the consumer is); a later commit would be refused. */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
