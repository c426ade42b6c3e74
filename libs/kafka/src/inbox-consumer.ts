/*
 * Long: the three ways of applying a batch (per event, pipelined, broadcast), parsing, dead letters and
 * crash restarts share the consumer's state; they are to be split along those lines.
 */
import type { MikroORM } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { EVENT_HEADERS, kafkaNamespace, type DomainEvent, type EventOf, type PlatformEventType } from '@platform/contracts';
import {
  deadLetterStatement,
  GroupCommit,
  inboxStatement,
  PipelinedTransaction,
  recordDeadLetter,
  recordInInbox,
  recordManyInInbox,
  type Row,
  type Statement,
} from '@platform/event-store';
import type { LagSource, PartitionAssignment } from './consumer-lag';
import { OffsetCommitter } from './offset-committer';
import { validateDomainEvent } from './event-validator';

export type EventHandler = (em: EntityManager, event: DomainEvent) => Promise<void>;

/** Effects by event type, each handler given its event with `type` and `data` narrowed (libs/contracts' PlatformEvent). */
export type EventHandlers = { [T in PlatformEventType]?: (em: EntityManager, event: EventOf<T>) => Promise<void> };

/**
 * The typed handlers as the consumer calls them. Sound: a handler is only ever given an event that
 * passed its type's JSON schema (parseEventMessage validates before choosing the handler).
 */
export function byEventType(handlers: EventHandlers): Record<string, EventHandler> {
  return handlers as Record<string, EventHandler>;
}

/**
 * A consumer's effect on a slice of events in two round trips to Postgres, however many events it
 * holds (PipelinedTransaction): what the decisions read goes with `begin` and the inbox record, and
 * the writes of the events not seen before go with the commit. For hot consumers, where handlers
 * would cost a few round trips per event, and each round trip costs the service and Postgres a
 * socket write and wake-up of their own.
 */
export interface PipelinedEffect {
  /** Event types applied; others on the topics are skipped. */
  types: readonly string[];
  /** Statements whose rows the slice's decisions need (the events may include some seen before). */
  read(events: DomainEvent[]): Statement[];
  /**
   * Given the rows of `read` (one array per statement), the function that returns each new event's
   * writes. It is called in offset order, in each event's context (log, span), and may keep what
   * the slice's earlier events decided (a stream's new version, say).
   */
  decide(rows: Row[][]): (event: DomainEvent) => Statement[];
}

export interface InboxConsumerOptions {
  kafka: Kafka;
  orm: MikroORM;
  /** The service's schema, holding inbox and dead_letters. */
  schema: string;
  /** Name recorded in the inbox; with the namespace prefix also the consumer group id. */
  consumerName: string;
  /** Consumer group; default: namespace + consumerName. A rebuild into a fresh schema uses its own. */
  groupId?: string;
  topics: string[];
  /** Effects by event type; other types on the topics are skipped. Exactly one of `handlers` and `pipelined`. */
  handlers?: Record<string, EventHandler>;
  /** The effect of a slice of events in two round trips; see PipelinedEffect. */
  pipelined?: PipelinedEffect;
  fromBeginning?: boolean;
  /** Called after an event's transaction committed (waiters, caches, metrics). */
  onApplied?: (event: DomainEvent) => void;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
  /**
   * Runs each event's handler (the service's log context and span for the event, continuing the
   * trace of the message's traceparent header). Default: the handler as is.
   */
  runInContext?: <T>(event: DomainEvent, traceparent: string | undefined, fn: () => Promise<T>) => Promise<T>;
  /** Messages left after each batch handled, per partition (the consumer lag gauge). */
  onLag?: (topic: string, partition: number, lag: number) => void;
  maxAttempts?: number;
  /**
   * Partitions handled at once (default 1). Order holds within a partition, which is all the keys
   * promise; more lets a consumer whose events wait on the database keep up with its topics.
   */
  partitionsConcurrently?: number;
  /**
   * After a batch smaller than a transaction's worth, the partition waits this long before its next
   * fetch (default 0): under load the next fetch then brings several events, applied with one
   * transaction and one inbox statement, instead of one event per fetch and transaction. An idle
   * partition never waits; an event arriving meanwhile waits at most this long. With
   * `partitionsConcurrently` at least the partitions of the topics, a fetch waits once.
   */
  paceMs?: number;
  /** The group session (default GROUP_SESSION_TIMEOUT_MS); heartbeats every third of it. */
  sessionTimeoutMs?: number;
}

/** A message of a batch, parsed: an event to apply, one to skip, or a payload to dead-letter. */
export type Parsed =
  | { kind: 'apply'; message: KafkaMessage; event: DomainEvent; handler: EventHandler; raw: string }
  | { kind: 'skip'; message: KafkaMessage }
  | { kind: 'dead'; message: KafkaMessage; eventId: string | null; raw: string; reason: string };

/**
 * What a consumer with these handlers does with a message: apply it (a valid event of a handled
 * type), skip it (a type it does not handle) or dead-letter it (not JSON, not an object, invalid).
 * Projection rebuilds read topics with the same rules, so they apply exactly what consumers apply.
 */
export function parseEventMessage(message: KafkaMessage, handlers: Record<string, EventHandler>): Parsed {
  const raw = message.value?.toString('utf8') ?? '';
  let event: DomainEvent;
  try {
    event = JSON.parse(raw) as DomainEvent;
  } catch {
    return { kind: 'dead', message, eventId: null, raw, reason: 'payload is not JSON' };
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return { kind: 'dead', message, eventId: null, raw, reason: 'payload is not a JSON object' };
  // Own properties only: a type such as "constructor" must not find Object.prototype's.
  const handler = typeof event.type === 'string' && Object.hasOwn(handlers, event.type) ? handlers[event.type] : undefined;
  if (!handler) return { kind: 'skip', message };
  const problem = validateDomainEvent(event);
  if (problem) return { kind: 'dead', message, eventId: event.eventId ?? null, raw, reason: `invalid event: ${problem}` };
  return { kind: 'apply', message, event, handler, raw };
}

/** Events applied in one transaction at most; a batch larger than this is applied in slices. */
const MAX_EVENTS_PER_TRANSACTION = 100;

/** Partitions' slices a pipelined effect applies in one transaction at most. */
const MAX_SLICES_PER_TRANSACTION = 6;

/** A partition's slice of events for a pipelined effect. */
interface PipelinedSlice {
  topic: string;
  partition: number;
  work: Parsed[];
}

/** How long an applied event's offset may wait for its commit (a crash re-delivers at most this much, which the inbox skips). */
const COMMIT_EVERY_MS = 500;

/**
 * An idempotent consumer (DESIGN section 2): events are applied in a fresh MikroORM context, in a
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
  /** What parseEventMessage applies: the handlers, or each pipelined type (applied by the effect, never through this). */
  private readonly applies: Record<string, EventHandler>;
  /** A pipelined effect's transactions, shared by the slices of partitions handled at once. */
  private readonly pipelinedSlices: GroupCommit<PipelinedSlice, DomainEvent[]> | null;

  constructor(private readonly options: InboxConsumerOptions) {
    if (!options.handlers === !options.pipelined) throw new Error(`${options.consumerName}: give either handlers or a pipelined effect`);
    const effect = options.pipelined;
    this.pipelinedSlices = effect
      ? new GroupCommit<PipelinedSlice, DomainEvent[]>(async (slices) => (await this.applyPipelined(effect, slices)).map((value) => ({ ok: true, value })), {
          maxBatch: MAX_SLICES_PER_TRANSACTION,
          maxConcurrent: 2,
        })
      : null;
    this.applies =
      options.handlers ??
      Object.fromEntries(
        (options.pipelined?.types ?? []).map((type) => [
          type,
          () => Promise.reject(new Error(`${type} is applied by the pipelined effect`)),
        ]),
      );
  }

  /** Event types applied; others on the topics are skipped without an inbox row. */
  get types(): string[] {
    return Object.keys(this.applies);
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
      sessionTimeout: o.sessionTimeoutMs ?? GROUP_SESSION_TIMEOUT_MS,
      heartbeatInterval: heartbeatIntervalFor(o.sessionTimeoutMs ?? GROUP_SESSION_TIMEOUT_MS),
      maxWaitTimeInMs: 1000,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    const committer = OffsetCommitter.forConsumer(consumer, COMMIT_EVERY_MS, (error) => o.onError?.(error, { consumer: o.consumerName, committing: true }));
    this.committer = committer;
    consumer.on(consumer.events.GROUP_JOIN, (event) => {
      this.joined = true;
      this.restarts = 0;
      this.assigned = event.payload.memberAssignment;
    });
    trackMembership(consumer, (member) => (this.joined = member));
    restartWhenCrashed(consumer, () => this.restart(), (error) => o.onError?.(error, { consumer: o.consumerName, crashed: true }));
    await consumer.connect();
    await consumer.subscribe({ topics: o.topics, fromBeginning: o.fromBeginning ?? true });
    await consumer.run({
      partitionsConsumedConcurrently: o.partitionsConcurrently ?? 1,
      // Offsets go out through the committer: kafkajs would send an OffsetCommit after every batch.
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (let from = 0; from < batch.messages.length; from += MAX_EVENTS_PER_TRANSACTION) {
          if (!isRunning() || isStale()) return;
          const slice = batch.messages.slice(from, from + MAX_EVENTS_PER_TRANSACTION);
          await this.handleSlice(batch.topic, batch.partition, slice);
          resolveOffset(slice[slice.length - 1].offset);
          committer.handled(batch.topic, batch.partition, slice[slice.length - 1].offset);
          await heartbeat();
        }
        o.onLag?.(batch.topic, batch.partition, Math.max(0, Number(batch.offsetLag())));
        if (o.paceMs && batch.messages.length < MAX_EVENTS_PER_TRANSACTION && isRunning()) await new Promise((resolve) => setTimeout(resolve, o.paceMs));
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

  private parse(message: KafkaMessage): Parsed {
    return parseEventMessage(message, this.applies);
  }

  private async handleSlice(topic: string, partition: number, messages: KafkaMessage[]): Promise<void> {
    const parsed = messages.map((message) => this.parse(message));
    const work = parsed.filter((p) => p.kind !== 'skip');
    if (work.length === 0) return;
    if (this.pipelinedSlices) {
      try {
        const applied = await this.pipelinedSlices.submit({ topic, partition, work });
        for (const event of applied) this.options.onApplied?.(event);
        return;
      } catch (error) {
        this.options.onError?.(error, { consumer: this.options.consumerName, topic, partition, batch: work.length, fallback: 'one by one' });
      }
    } else if (work.length > 1) {
      try {
        const applied = await this.applyTogether(topic, partition, work);
        for (const event of applied) this.options.onApplied?.(event);
        return;
      } catch (error) {
        this.options.onError?.(error, { consumer: this.options.consumerName, topic, partition, batch: work.length, fallback: 'one by one' });
      }
    }
    for (const item of work) await this.handleOne(topic, partition, item);
  }

  /** The whole slice in one transaction; returns the events applied (not seen before), in order. */
  private async applyTogether(topic: string, partition: number, work: Parsed[]): Promise<DomainEvent[]> {
    const o = this.options;
    const toApply = work.filter((p): p is Extract<Parsed, { kind: 'apply' }> => p.kind === 'apply');
    const applied: DomainEvent[] = [];
    await o.orm.em.fork().transactional(async (em) => {
      const tx = em as unknown as EntityManager;
      const fresh = await recordManyInInbox(
        tx,
        o.schema,
        o.consumerName,
        toApply.map((p) => p.event.eventId),
      );
      for (const item of work) {
        if (item.kind === 'dead') {
          o.onError?.(new Error(item.reason), { consumer: o.consumerName, topic, partition, offset: item.message.offset, deadLettered: true });
          await recordDeadLetter(tx, o.schema, { consumer: o.consumerName, topic, partition, offset: item.message.offset, eventId: item.eventId, payload: item.raw, error: item.reason });
          continue;
        }
        if (item.kind !== 'apply' || !fresh.delete(item.event.eventId)) continue;
        await this.run(item, () => item.handler(tx, item.event));
        // Each handler sees the database as if it ran alone: earlier handlers' entities are written and forgotten.
        await tx.flush();
        tx.clear();
        applied.push(item.event);
      }
    });
    return applied;
  }

  /**
   * Slices of a pipelined effect in one transaction: the reads with `begin` and the inbox record,
   * the writes with the commit. Returns the events applied (not seen before) of each slice, in order.
   */
  private async applyPipelined(effect: PipelinedEffect, slices: PipelinedSlice[]): Promise<DomainEvent[][]> {
    const o = this.options;
    const events = slices.flatMap(({ work }) => work.flatMap((p) => (p.kind === 'apply' ? [p.event] : [])));
    const applied = slices.map((): DomainEvent[] => []);
    await PipelinedTransaction.run(o.orm.em.fork() as unknown as EntityManager, async (tx) => {
      const [recorded, ...reads] = events.length === 0 ? [[]] : await tx.query([inboxStatement(o.schema, o.consumerName, events.map((e) => e.eventId)), ...effect.read(events)]);
      const fresh = new Set(recorded.map((row) => row.event_id as string));
      const decide = events.length === 0 ? null : effect.decide(reads);
      const writes: Statement[] = [];
      for (const [at, { topic, partition, work }] of slices.entries()) {
        for (const item of work) {
          if (item.kind === 'dead') {
            o.onError?.(new Error(item.reason), { consumer: o.consumerName, topic, partition, offset: item.message.offset, deadLettered: true });
            writes.push(deadLetterStatement(o.schema, { consumer: o.consumerName, topic, partition, offset: item.message.offset, eventId: item.eventId, payload: item.raw, error: item.reason }));
            continue;
          }
          if (item.kind !== 'apply' || !decide || !fresh.delete(item.event.eventId)) continue;
          await this.run(item, async () => {
            writes.push(...decide(item.event));
          });
          applied[at].push(item.event);
        }
      }
      await tx.commit(writes);
    });
    return applied;
  }

  private async handleOne(topic: string, partition: number, item: Parsed): Promise<void> {
    const o = this.options;
    if (item.kind === 'skip') return;
    if (item.kind === 'dead') {
      await this.deadLetter(topic, partition, item.message, item.eventId, item.raw, item.reason);
      return;
    }
    const { event, handler, message, raw } = item;
    const maxAttempts = o.maxAttempts ?? 5;
    for (let attempt = 1; ; attempt++) {
      try {
        if (o.pipelined) {
          const [applied] = await this.applyPipelined(o.pipelined, [{ topic, partition, work: [item] }]);
          for (const event of applied) o.onApplied?.(event);
          return;
        }
        let applied = false;
        await o.orm.em.fork().transactional(async (em) => {
          const tx = em as unknown as EntityManager;
          if (!(await recordInInbox(tx, o.schema, o.consumerName, event.eventId))) return;
          await this.run(item, () => handler(tx, event));
          applied = true;
        });
        if (applied) o.onApplied?.(event);
        return;
      } catch (error) {
        o.onError?.(error, { consumer: o.consumerName, eventId: event.eventId, type: event.type, attempt });
        if (attempt >= maxAttempts) {
          await this.deadLetter(topic, partition, message, event.eventId, raw, String((error as Error)?.stack ?? error));
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  private run(item: Extract<Parsed, { kind: 'apply' }>, fn: () => Promise<void>): Promise<void> {
    const around = this.options.runInContext;
    return around ? around(item.event, headerString(item.message.headers?.[EVENT_HEADERS.traceparent]), fn) : fn();
  }

  private async deadLetter(topic: string, partition: number, message: KafkaMessage, eventId: string | null, payload: string, error: string) {
    const o = this.options;
    o.onError?.(new Error(error), { consumer: o.consumerName, topic, partition, offset: message.offset, deadLettered: true });
    await o.orm.em.fork().transactional(async (em) => {
      await recordDeadLetter(em as unknown as EntityManager, o.schema, {
        consumer: o.consumerName,
        topic,
        partition,
        offset: message.offset,
        eventId,
        payload,
        error,
      });
    });
  }
}

/** A Kafka header value as a string (the first, when repeated). */
export function headerString(value: Buffer | string | (Buffer | string)[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

/**
 * Default session of the services' consumer groups (inbox consumers and RPC servers;
 * KAFKA_SESSION_TIMEOUT_MS overrides it). Below Kafka's default broker minimum
 * (group.min.session.timeout.ms, 6 s), which the platform's brokers lower:
 * docs/adr/0154-short-consumer-group-sessions.md.
 */
export const GROUP_SESSION_TIMEOUT_MS = 3_000;

/** A third of the session, as Kafka advises: two heartbeats may be late before the member is dropped. */
export function heartbeatIntervalFor(sessionTimeoutMs: number): number {
  return Math.max(250, Math.floor(sessionTimeoutMs / 3));
}

/**
 * Waits before the n-th rebuild of a crashed consumer: 1 s, then 2 s. Short, because a consumer asleep
 * here when the broker returns is a service that cannot serve yet; kafkajs's own retries (about 6 s,
 * kafkaClientConfig) already space out the rebuilds of one that keeps failing.
 */
export function waitBeforeRestart(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, restartDelayMs(attempt)));
}

export function restartDelayMs(attempt: number): number {
  return Math.min(500 * 2 ** attempt, 2_000);
}

/** Calls `onChange(false)` when the consumer leaves its group (crash, stop, lost connection) and `onChange(true)` at each join. */
export function trackMembership(consumer: Consumer, onChange: (member: boolean) => void): void {
  consumer.on(consumer.events.GROUP_JOIN, () => onChange(true));
  for (const left of [consumer.events.CRASH, consumer.events.STOP, consumer.events.DISCONNECT]) consumer.on(left, () => onChange(false));
}

/**
 * kafkajs restarts a crashed consumer only after errors it deems retriable; after any other (a
 * group coordinator not found while a fresh broker loads, for one) the consumer stays dead and its
 * partitions unread. `restart` is then called to build a new one.
 */
export function restartWhenCrashed(consumer: Consumer, restart: () => Promise<void>, onCrash: (error: unknown) => void): void {
  consumer.on(consumer.events.CRASH, (event) => {
    const { error, restart: restartsItself } = event.payload as { error: Error; restart: boolean };
    if (restartsItself) return;
    onCrash(error);
    void restart();
  });
}

/**
 * A consumer without persistence for per-replica state (caches): its own group per process so every
 * replica sees every event, starting at the end of the topic. Resolves once the group is joined.
 */
export async function startBroadcastConsumer(args: {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  fromBeginning?: boolean;
  onEvent: (event: DomainEvent) => void | Promise<void>;
  onError?: (error: unknown) => void;
  /** The group session (default GROUP_SESSION_TIMEOUT_MS): how long a crashed consumer keeps its replacement out. */
  sessionTimeoutMs?: number;
}): Promise<{ disconnect: () => Promise<void> }> {
  const groupSessionMs = args.sessionTimeoutMs ?? GROUP_SESSION_TIMEOUT_MS;
  let current: Consumer | null = null;
  let stopped = false;
  let restarts = 0;
  const start = async (): Promise<void> => {
    const consumer = args.kafka.consumer({ groupId: kafkaNamespace() + args.groupId, maxWaitTimeInMs: 1000, sessionTimeout: groupSessionMs, heartbeatInterval: heartbeatIntervalFor(groupSessionMs), allowAutoTopicCreation: false });
    current = consumer;
    restartWhenCrashed(consumer, restart, (error) => args.onError?.(error));
    await consumer.connect();
    await consumer.subscribe({ topics: args.topics, fromBeginning: args.fromBeginning ?? false });
    const joined = new Promise<void>((resolve) => consumer.on(consumer.events.GROUP_JOIN, () => resolve()));
    await consumer.run({
      eachMessage: async ({ message }) => {
        try {
          const event = JSON.parse(message.value?.toString('utf8') ?? '') as DomainEvent;
          if (validateDomainEvent(event) === null) await args.onEvent(event);
        } catch {
          // A broadcast consumer only refreshes caches; a bad message must not stop it.
        }
      },
    });
    await joined;
    restarts = 0;
  };
  const restart = async (): Promise<void> => {
    await current?.disconnect().catch(() => undefined);
    restarts += 1;
    await waitBeforeRestart(restarts);
    if (stopped) return;
    await start().catch((error) => {
      args.onError?.(error);
      void restart();
    });
  };
  await start();
  return {
    disconnect: async () => {
      stopped = true;
      await current?.disconnect().catch(() => undefined);
    },
  };
}
