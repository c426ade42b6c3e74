/**
 * When a partition of an inbox consumer waits before its next fetch (docs/adr/0020). Kafka answers a
 * fetch as soon as one event is there, so a consumer that keeps up under load applies an event or two
 * per transaction, and each transaction costs a commit, round trips and a fetch of its own. A partition
 * that is busy waits `paceMs` after a batch smaller than a transaction's worth, so the next one brings
 * what arrived meanwhile. A partition that is idle or lightly loaded never waits: its events go
 * through at once.
 *
 * Busy means batches come close behind each other: the time from the end of a batch (or of the wait
 * after it) to the start of the next, averaged over the last several batches, is under half the pace.
 * Events reach a topic in bursts (a relay publishes what committed since its last batch), so under
 * load the gap is the relay's cadence rather than nothing; once paced, the next batch is waiting
 * and the gap stays short. One event that happens to follow another closely does not make a
 * partition wait.
 */
export class FetchPacer {
  /** Per partition handled (a topic's partitions at most); a consumer makes a new pacer each time it starts. */
  private readonly partitions = new Map<string, { readyAt: number; averageGapMs: number }>();

  constructor(
    private readonly paceMs: number,
    /** A batch of this many events or more is a transaction's worth: never followed by a wait. */
    private readonly fullBatch: number,
    /** A partition whose average gap is below this is busy. */
    private readonly busyGapMs = paceMs / 2,
  ) {}

  /**
   * The wait after a batch of `size` events of `partition` that began at `startedAt` and ended at
   * `endedAt` (ms), recorded for the next batch.
   */
  afterBatch(partition: string, size: number, startedAt: number, endedAt: number): number {
    const before = this.partitions.get(partition);
    const gap = before === undefined ? LONGEST_GAP_MS : Math.min(LONGEST_GAP_MS, Math.max(0, startedAt - before.readyAt));
    const averageGapMs = before === undefined ? gap : before.averageGapMs * (1 - GAP_WEIGHT) + gap * GAP_WEIGHT;
    const wait = size < this.fullBatch && averageGapMs < this.busyGapMs ? this.paceMs : 0;
    this.partitions.set(partition, { readyAt: endedAt + wait, averageGapMs });
    return wait;
  }
}

/** A gap counts this much at most, so a long idle spell does not hide load for long once it comes. */
const LONGEST_GAP_MS = 1_000;
/** The weight of the latest gap in the average. */
const GAP_WEIGHT = 0.3;
