import type { Consumer, Kafka } from 'kafkajs';
import { kafkaNamespace } from '#platform/contracts';
import type { LagSource, PartitionAssignment } from './consumer-lag';
import { groupSession, restartWhenCrashed, trackMembership, waitBeforeRestart } from './consumer-restarts';
import { FetchPacer } from './fetch-pacer';
import { InboxBatchApplier, type InboxBatchOptions } from './inbox-batch';
import { OffsetCommitter } from './offset-committer';

export interface InboxConsumerOptions extends InboxBatchOptions {
  kafka: Kafka;
  /** Consumer group; default: namespace + consumerName. A rebuild into a fresh schema uses its own. */
  groupId?: string;
  topics: string[];
  fromBeginning?: boolean;
  /** Messages left after each batch handled, per partition (the consumer lag gauge). */
  onLag?: (topic: string, partition: number, lag: number) => void;
  /**
   * Partitions handled at once (default 1). Order holds within a partition, which is all the keys
   * promise; more lets a consumer whose events wait on the database keep up with its topics.
   */
  partitionsConcurrently?: number;
  /**
   * After a batch smaller than a transaction's worth, a busy partition waits this long before its
   * next fetch (default 0; fetch-pacer.ts): under load the next fetch then brings several events,
   * applied with one transaction and one inbox statement, instead of an event or two per fetch and
   * transaction. An idle or lightly loaded partition never waits; an event arriving during a wait
   * waits at most this long. With `partitionsConcurrently` at least the partitions of the topics, a
   * fetch waits once.
   */
  paceMs?: number;
  /** The group session (default GROUP_SESSION_TIMEOUT_MS); heartbeats every third of it. */
  sessionTimeoutMs?: number;
}

/** Events applied in one transaction at most; a batch larger than this is applied in slices. */
const MAX_EVENTS_PER_TRANSACTION = 100;

/** How long an applied event's offset may wait for its commit (a crash re-delivers at most this much, which the inbox skips). */
const COMMIT_EVERY_MS = 500;

/**
 * An idempotent consumer (architecture section 2): events are applied in a fresh MikroORM context, in a
 * transaction that records `(consumer, eventId)` in the inbox together with the effects; offsets
 * are resolved only after that commit, and committed to Kafka together at most every 500 ms (a
 * restart re-reads those events, and the inbox skips them). A Kafka batch is applied in one transaction (one inbox
 * statement for all its events, each handler in offset order), which is what lets a consumer keep
 * up on a busy machine: a transaction per event costs a commit and several round trips each. If
 * anything in a batch fails, the batch is rolled back and applied again event by event, so one bad
 * event retries and dead-letters alone. Invalid payloads, and events that keep failing, go to
 * dead_letters with the reason instead of blocking the partition.
 *
 * A pipelined effect also shares transactions across partitions: the slices of partitions handled
 * at once that arrive while earlier ones are being written are applied together (group commit),
 * each partition still in its own order and resolving its own offsets. With six partitions each
 * bringing an event or two per fetch, a transaction per partition slice cost the webhook
 * dispatcher two round trips and a commit for every event or two.
 */
export class InboxConsumer implements LagSource {
  private consumer: Consumer | null = null;
  private committer: OffsetCommitter | null = null;
  private stopped = false;
  private restarts = 0;
  private assigned: PartitionAssignment = {};
  /**
   * A member of its group now: set by each join, cleared when the consumer crashes, stops or loses
   * its connection. While false, callers waiting on its effects would wait in vain: not ready.
   */
  joined = false;
  /** Applies the batches, its effect's way. */
  private readonly applier: InboxBatchApplier;

  constructor(private readonly options: InboxConsumerOptions) {
    if (!options.handlers === !options.pipelined) throw new Error(`${options.consumerName}: give either handlers or a pipelined effect`);
    this.applier = new InboxBatchApplier(options);
  }

  /** Event types applied; others on the topics are skipped without an inbox row. */
  get types(): string[] {
    return Object.keys(this.applier.applies);
  }

  /** The name recorded in the inbox (also the lag gauge's `consumer` label). */
  get consumerName(): string {
    return this.options.consumerName;
  }

  get groupId(): string {
    return this.options.groupId ?? kafkaNamespace() + this.options.consumerName;
  }

  /** Kept across a crash and restart (a member that cannot rejoin is exactly the one whose lag grows). */
  assignment(): PartitionAssignment {
    return this.assigned;
  }

  async start(): Promise<void> {
    const o = this.options;
    this.stopped = false;
    const consumer = o.kafka.consumer({
      groupId: this.groupId,
      // A replica killed with -9 holds its partitions until its session lapses, and its replacement
      // waits that long to join (kafkajs has no static membership to take the old member's place).
      ...groupSession(o.sessionTimeoutMs),
      maxWaitTimeInMs: 1000,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    const committer = OffsetCommitter.forConsumer(consumer, COMMIT_EVERY_MS, (error) => o.onError?.(error, { consumer: o.consumerName, committing: true }));
    this.committer = committer;
    const pacer = o.paceMs ? new FetchPacer(o.paceMs, MAX_EVENTS_PER_TRANSACTION) : null;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.joined = true;
      this.restarts = 0;
      this.assigned = event.payload.memberAssignment;
    });
    trackMembership(consumer, (member) => (this.joined = member));
    restartWhenCrashed(
      consumer,
      () => this.restart(),
      (error) => o.onError?.(error, { consumer: o.consumerName, crashed: true }),
    );
    await consumer.connect();
    await consumer.subscribe({ topics: o.topics, fromBeginning: o.fromBeginning ?? true });
    await consumer.run({
      partitionsConsumedConcurrently: o.partitionsConcurrently ?? 1,
      // Offsets go out through the committer: kafkajs would send an OffsetCommit after every batch.
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const startedAt = Date.now();
        for (let from = 0; from < batch.messages.length; from += MAX_EVENTS_PER_TRANSACTION) {
          if (!isRunning() || isStale()) return;
          const slice = batch.messages.slice(from, from + MAX_EVENTS_PER_TRANSACTION);
          await this.applier.handleSlice(batch.topic, batch.partition, slice);
          resolveOffset(slice[slice.length - 1].offset);
          committer.handled(batch.topic, batch.partition, slice[slice.length - 1].offset);
          await heartbeat();
        }
        o.onLag?.(batch.topic, batch.partition, Math.max(0, Number(batch.offsetLag())));
        const wait = pacer?.afterBatch(`${batch.topic}:${batch.partition}`, batch.messages.length, startedAt, Date.now()) ?? 0;
        if (wait > 0 && isRunning()) await new Promise((resolve) => setTimeout(resolve, wait));
      },
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.assigned = {};
    // What was applied is committed before the member leaves, so the next owner starts after it.
    await this.committer?.flush();
    this.committer = null;
    await this.consumer?.disconnect().catch(() => undefined);
    this.consumer = null;
  }

  /** kafkajs gives up on some errors (a coordinator still loading on a fresh broker): start over with a new consumer. */
  private async restart(): Promise<void> {
    if (this.stopped) return;
    const old = this.consumer;
    this.consumer = null;
    this.committer?.clear();
    await old?.disconnect().catch(() => undefined);
    this.restarts += 1;
    await waitBeforeRestart(this.restarts);
    if (this.stopped) return;
    await this.start().catch((error) => {
      this.options.onError?.(error, { consumer: this.options.consumerName, restart: this.restarts });
      void this.restart();
    });
  }
}
