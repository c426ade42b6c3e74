import type { Admin, Kafka } from 'kafkajs';

/** Topic → partitions, as a consumer group member is assigned them (kafkajs' GROUP_JOIN memberAssignment). */
export type PartitionAssignment = Record<string, number[]>;

/** A consumer whose lag a ConsumerLagPoller reports: this process's member of one consumer group. */
export interface LagSource {
  /** The gauge's `consumer` label. */
  readonly consumerName: string;
  readonly groupId: string;
  /**
   * The partitions this process's member was assigned at its last join; empty before the first and
   * after a stop. Only these are reported, so replicas of a service never report the same partition.
   */
  assignment(): PartitionAssignment;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

/** What the admin client answered: committed offsets of the group, and each topic's low and high watermarks. */
export interface LagInputs {
  committed: { topic: string; partitions: { partition: number; offset: string }[] }[];
  watermarks: Map<string, { partition: number; low: string; high: string }[]>;
}

/**
 * Messages between the group's committed offset and the partition's high watermark, for each
 * assigned partition whose watermark is known. No commit yet (offset -1), or a commit below the low
 * watermark (the messages were deleted by retention), counts from the low watermark: the consumer
 * reads from the beginning of what is left.
 */
export function partitionLags(assignment: PartitionAssignment, inputs: LagInputs): PartitionLag[] {
  const committed = new Map<string, bigint>();
  for (const { topic, partitions } of inputs.committed) for (const p of partitions) committed.set(`${topic}:${p.partition}`, BigInt(p.offset));
  const lags: PartitionLag[] = [];
  for (const [topic, partitions] of Object.entries(assignment)) {
    const ends = new Map((inputs.watermarks.get(topic) ?? []).map((w) => [w.partition, w]));
    for (const partition of partitions) {
      const end = ends.get(partition);
      if (!end) continue;
      const low = BigInt(end.low);
      const high = BigInt(end.high);
      const from = committed.get(`${topic}:${partition}`) ?? -1n;
      const next = from < low ? low : from;
      lags.push({ topic, partition, lag: Number(high > next ? high - next : 0n) });
    }
  }
  return lags.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
}

export interface ConsumerLagPollerOptions {
  kafka: Kafka;
  /** The complete lag of one consumer in this process: partitions not listed are no longer its own. */
  onLags: (consumer: string, lags: PartitionLag[]) => void;
  onError?: (error: unknown) => void;
}

/**
 * Refreshes consumer lag from the broker, so an idle or stuck consumer's gauge stays true between
 * batches: per round, one OffsetFetch per consumer group and one watermark lookup per topic, however
 * many groups read it, over one admin connection. Rounds never overlap; a failed round keeps the last
 * values and reports the error once until a round succeeds again.
 */
export class ConsumerLagPoller {
  private readonly sources: LagSource[] = [];
  private admin: Admin | null = null;
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private failing = false;
  private stopped = false;

  constructor(private readonly options: ConsumerLagPollerOptions) {}

  track(source: LagSource): void {
    this.sources.push(source);
  }

  /** A round every `everyMs` until stop(); the timer never keeps the process alive. */
  start(everyMs: number): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.refresh(), everyMs);
    this.timer.unref();
  }

  /** One round now (or the one under way). */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.round ??= this.poll().finally(() => (this.round = null));
    return this.round;
  }

  /** Stops the timer, waits for a round under way, and closes the admin connection. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = null;
  }

  private async poll(): Promise<void> {
    try {
      const assigned = this.sources.map((source) => ({ source, assignment: source.assignment() }));
      const topics = [...new Set(assigned.flatMap(({ assignment }) => Object.keys(assignment)))];
      if (topics.length === 0) {
        for (const { source } of assigned) this.options.onLags(source.consumerName, []);
        return;
      }
      const admin = await this.connected();
      const [watermarks, committed] = await Promise.all([
        Promise.all(topics.map(async (topic) => [topic, await admin.fetchTopicOffsets(topic)] as const)).then((entries) => new Map(entries)),
        Promise.all(
          assigned.map(({ source, assignment }) => {
            const groupTopics = Object.keys(assignment);
            return groupTopics.length === 0 ? Promise.resolve([]) : admin.fetchOffsets({ groupId: source.groupId, topics: groupTopics });
          }),
        ),
      ]);
      if (this.stopped) return;
      assigned.forEach(({ source, assignment }, i) =>
        this.options.onLags(source.consumerName, partitionLags(assignment, { committed: committed[i], watermarks })),
      );
      this.failing = false;
    } catch (error) {
      if (this.stopped) return;
      if (!this.failing) this.options.onError?.(error);
      this.failing = true;
    }
  }

  private async connected(): Promise<Admin> {
    if (this.admin) return this.admin;
    const admin = this.options.kafka.admin();
    await admin.connect();
    if (this.stopped) {
      // stop() ran while connecting: it could not close this connection, so close it here.
      await admin.disconnect().catch(() => undefined);
      throw new Error('consumer lag poller stopped');
    }
    this.admin = admin;
    return admin;
  }
}
