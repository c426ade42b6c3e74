// Over 300 lines: the three ways of applying a slice (a pipelined effect, handlers together, one
// event at a time) share the inbox's rules (applied offsets, dead letters, stale redrives) here.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { KafkaMessage } from 'kafkajs';
import { EVENT_HEADERS, type DomainEvent } from '#platform/contracts';
import { consumerProgress, consumerProgressStatement, deadLettersAppliedStatement, type PartitionProgress } from '#platform/event-store';
import { GroupCommit, PipelinedTransaction, type PostgresOrm, type Row, type Statement } from '#platform/postgres';
import { deadLetterAlone, deadLetterInTransaction, deadLettersToRetry, deadLetterWrite } from './dead-letters';
import { headerString, parseEventMessage, type EventHandler, type Parsed } from './event-message.parser';

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
  decide(rows: Row[][]): SliceDecisions;
  /**
   * True when the effect is its own inbox: its writes are keyed by something derived from the event
   * (the same on every copy) and write nothing for an event already applied, so the consumer writes
   * no inbox row for its events and treats every event past the partition's applied offset as new.
   * The effect must then apply any copy of an event (a redrive, a duplicate on the topic, a replay
   * from offset 0 past a lost offset, a slice applied by two replicas during a rebalance, the same
   * event twice in one slice) as a no-op itself, for at least as long as the inbox's window
   * (`dedupeWindowMs`): a redriven copy older than that is still passed over before the effect.
   * The applied offsets are recorded and checked as for any consumer, and `onApplied` also hears of
   * the copies the effect passed over. Nothing can wait for such a consumer by its inbox
   * (docs/adr/0226-an-effect-that-is-its-own-inbox.md).
   */
  dedupedByEffect?: boolean;
}

/**
 * Each new event's writes; `finish`, when present, returns what the slice's decisions gathered to
 * write once, after the last event (rows of many events in one statement: Postgres executes one
 * statement instead of one per event).
 */
export interface SliceDecisions {
  (event: DomainEvent): Statement[];
  finish?(): Statement[];
}

/** What applying a consumer's batches takes: where, under which name, which effect, and whom to tell. */
export interface InboxBatchOptions {
  orm: PostgresOrm;
  /** The service's schema, holding inbox and dead_letters. */
  schema: string;
  /** Name recorded in the inbox; with the namespace prefix also the consumer group id. */
  consumerName: string;
  /** Effects by event type; other types on the topics are skipped. Exactly one of `handlers` and `pipelined`. */
  handlers?: Record<string, EventHandler>;
  /** The effect of a slice of events in two round trips; see PipelinedEffect. */
  pipelined?: PipelinedEffect;
  /** Called after an event's transaction committed (waiters, caches, metrics). */
  onApplied?: (event: DomainEvent) => void;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
  /**
   * Runs each event's handler (the service's log context and span for the event, continuing the
   * trace of the message's traceparent header). Default: the handler as is.
   */
  runInContext?: <T>(event: DomainEvent, traceparent: string | undefined, fn: () => Promise<T>) => Promise<T>;
  maxAttempts?: number;
  /**
   * How long the inbox remembers an event id (its pruner's window). A redriven copy (`redriven-at`
   * header) of an event older than this may be one the inbox forgot: it is passed over, counted in
   * `onStaleRedrive` (docs/adr/0190-bounded-inbox-offsets-and-window.md). Default: 7 days.
   */
  dedupeWindowMs?: number;
  /** The service's clock (the test clock moves it): the inbox's and dead letters' times, and the window. Default: Date.now. */
  now?: () => number;
  onStaleRedrive?: (event: DomainEvent) => void;
}

/** Events are remembered by id for a week: the horizon of `platformctl outbox redrive`. */
export const DEFAULT_DEDUPE_WINDOW_MS = 7 * 24 * 3600 * 1000;

/** The highest offset among messages (Kafka gives offsets as decimal strings). */
function lastOffsetOf(work: Parsed[]): string {
  let last = -1n;
  for (const item of work) {
    const offset = BigInt(item.message.offset);
    if (offset > last) last = offset;
  }
  return String(last);
}

/** Partitions' slices a pipelined effect applies in one transaction at most. */
const MAX_SLICES_PER_TRANSACTION = 6;

/** A partition's slice of events for a pipelined effect. */
interface PipelinedSlice {
  topic: string;
  partition: number;
  work: Parsed[];
}

/**
 * Applies an inbox consumer's slices of events in one of three ways: a pipelined effect (slices of
 * partitions handled at once sharing a transaction), the handlers (the whole slice in one
 * transaction), or, when either fails, one event at a time, so one bad event retries and
 * dead-letters alone.
 */
export class InboxBatchApplier {
  /** What parseEventMessage applies: the handlers, or each pipelined type (applied by the effect, never through this). */
  readonly applies: Record<string, EventHandler>;
  /** A pipelined effect's transactions, shared by the slices of partitions handled at once. */
  private readonly pipelinedSlices: GroupCommit<PipelinedSlice, DomainEvent[]> | null;

  constructor(private readonly options: InboxBatchOptions) {
    const effect = options.pipelined;
    this.pipelinedSlices = effect
      ? new GroupCommit<PipelinedSlice, DomainEvent[]>(async (slices) => (await this.applyPipelined(effect, slices)).map((value) => ({ ok: true, value })), {
          maxBatch: MAX_SLICES_PER_TRANSACTION,
          maxConcurrent: 2,
        })
      : null;
    this.applies =
      options.handlers ??
      Object.fromEntries((options.pipelined?.types ?? []).map((type) => [type, () => Promise.reject(new Error(`${type} is applied by the pipelined effect`))]));
  }

  private parse(message: KafkaMessage): Parsed {
    return parseEventMessage(message, this.applies);
  }

  /** Applies a slice of one partition's batch, in offset order; resolves once every event is applied, skipped or dead-lettered. */
  async handleSlice(topic: string, partition: number, messages: KafkaMessage[]): Promise<void> {
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
    await o.orm.em.fork().transactional(async (tx) => {
      const { fresh, before } = await this.recordProgress(tx, toApply, [{ topic, partition, lastOffset: lastOffsetOf(work) }]);
      const appliedUpTo = before.get(`${topic}:${partition}`) ?? -1n;
      const [retry] = await deadLettersToRetry(o, [{ topic, partition, work }], before, async (statements) => {
        const rows: Record<string, unknown>[][] = [];
        for (const st of statements) rows.push(await tx.execute<Record<string, unknown>[]>(st.sql, st.params));
        return rows;
      });
      const retried: string[] = [];
      for (const item of work) {
        if (BigInt(item.message.offset) <= appliedUpTo && !(item.kind === 'apply' && retry.has(item.message.offset))) continue;
        if (item.kind === 'dead') {
          await deadLetterInTransaction(o, tx, topic, partition, item);
          continue;
        }
        if (item.kind !== 'apply' || !fresh.delete(item.event.eventId) || this.staleRedrive(item)) continue;
        await this.run(item, () => item.handler(tx, item.event));
        // Each handler sees the database as if it ran alone: earlier handlers' entities are written and forgotten.
        await tx.flush();
        tx.clear();
        applied.push(item.event);
        if (retry.has(item.message.offset)) retried.push(item.message.offset);
      }
      if (retried.length > 0) {
        const done = deadLettersAppliedStatement(o.schema, o.consumerName, topic, partition, retried);
        await tx.execute(done.sql, done.params);
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
    await PipelinedTransaction.run(o.orm.em.fork(), async (tx) => {
      const progress = slices.map(({ topic, partition, work }): PartitionProgress => ({ topic, partition, lastOffset: lastOffsetOf(work) }));
      // An effect that is its own inbox gets no inbox rows: the statement only moves the offsets.
      const recordProgress = consumerProgressStatement(
        o.schema,
        o.consumerName,
        progress,
        effect.dedupedByEffect ? [] : events.map((e) => e.eventId),
        new Date((o.now ?? Date.now)()),
      );
      const [recorded, ...reads] = await tx.query([recordProgress, ...(events.length === 0 ? [] : effect.read(events))]);
      const { before, fresh } = consumerProgress(recorded);
      const decide = events.length === 0 ? null : effect.decide(reads);
      const retries = await deadLettersToRetry(o, slices, before, (statements) => tx.query(statements));
      const writes: Statement[] = [];
      for (const [at, { topic, partition, work }] of slices.entries()) {
        const appliedUpTo = before.get(`${topic}:${partition}`) ?? -1n;
        const retry = retries[at];
        const retried: string[] = [];
        for (const item of work) {
          if (BigInt(item.message.offset) <= appliedUpTo && !(item.kind === 'apply' && retry.has(item.message.offset))) continue;
          if (item.kind === 'dead') {
            writes.push(deadLetterWrite(o, topic, partition, item));
            continue;
          }
          if (item.kind !== 'apply' || !decide || !(effect.dedupedByEffect || fresh.delete(item.event.eventId)) || this.staleRedrive(item)) continue;
          await this.run(item, async () => {
            writes.push(...decide(item.event));
          });
          applied[at].push(item.event);
          if (retry.has(item.message.offset)) retried.push(item.message.offset);
        }
        if (retried.length > 0) writes.push(deadLettersAppliedStatement(o.schema, o.consumerName, topic, partition, retried));
      }
      if (decide?.finish) writes.push(...decide.finish());
      await tx.commit(writes);
    });
    return applied;
  }

  private async handleOne(topic: string, partition: number, item: Parsed): Promise<void> {
    const o = this.options;
    if (item.kind === 'skip') return;
    if (item.kind === 'dead') {
      await deadLetterAlone(o, topic, partition, item);
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
        await o.orm.em.fork().transactional(async (tx) => {
          const { fresh, before } = await this.recordProgress(tx, [item], [{ topic, partition, lastOffset: item.message.offset }]);
          if (BigInt(item.message.offset) <= (before.get(`${topic}:${partition}`) ?? -1n) || !fresh.has(event.eventId) || this.staleRedrive(item)) return;
          await this.run(item, () => handler(tx, event));
          applied = true;
        });
        if (applied) o.onApplied?.(event);
        return;
      } catch (error) {
        o.onError?.(error, { consumer: o.consumerName, eventId: event.eventId, type: event.type, attempt });
        if (attempt >= maxAttempts) {
          await deadLetterAlone(o, topic, partition, { message, eventId: event.eventId, payload: raw, error: String((error as Error)?.stack ?? error) });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, 5000)));
      }
    }
  }

  /** In the effect's transaction: the inbox record of these events and the partitions' applied offsets (before, and moved on). */
  private async recordProgress(
    tx: EntityManager,
    items: Extract<Parsed, { kind: 'apply' }>[],
    progress: PartitionProgress[],
  ): Promise<{ fresh: Set<string>; before: Map<string, bigint> }> {
    const o = this.options;
    const statement = consumerProgressStatement(
      o.schema,
      o.consumerName,
      progress,
      items.map((p) => p.event.eventId),
      new Date((o.now ?? Date.now)()),
    );
    return consumerProgress(await tx.execute<Record<string, unknown>[]>(statement.sql, statement.params));
  }

  /** A redriven copy of an event older than the inbox's window: the inbox may have forgotten it, so it is passed over. */
  private staleRedrive(item: Extract<Parsed, { kind: 'apply' }>): boolean {
    if (headerString(item.message.headers?.[EVENT_HEADERS.redrivenAt]) === undefined) return false;
    const o = this.options;
    const stale = Date.parse(item.event.occurredAt) < (o.now ?? Date.now)() - (o.dedupeWindowMs ?? DEFAULT_DEDUPE_WINDOW_MS);
    if (stale) o.onStaleRedrive?.(item.event);
    return stale;
  }

  private run(item: Extract<Parsed, { kind: 'apply' }>, fn: () => Promise<void>): Promise<void> {
    const around = this.options.runInContext;
    return around ? around(item.event, headerString(item.message.headers?.[EVENT_HEADERS.traceparent]), fn) : fn();
  }
}
