// Over 300 lines because a topic rebuild is one procedure (plan the offsets, read every partition,
// apply the live handlers, check against the live inbox and applied offsets, swap) whose steps share its cursor state.
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { kafkaNamespace, type DomainEvent } from '#platform/contracts';
import {
  createRebuildTables,
  indexRebuiltTables,
  pgTextArray,
  quoteIdent,
  bufferingRebuildEntityManager,
  swapInRebuiltTables,
  tableRedirect,
  type RebuildOptions,
  type RebuildQuery,
} from '#platform/event-store';
import { byEventType, parseEventMessage, type EventHandler, type EventHandlers } from './event-message.parser';

/** One live consumer whose projection effects a rebuild replays. */
export interface TopicRebuildConsumer {
  /** The live consumer's inbox name, `<service>.<name>`; with the namespace also its group id. */
  consumer: string;
  topics: string[];
  /** The live handlers' effects on the rebuilt tables and nothing else: no decisions, no appends. */
  handlers: EventHandlers;
}

/** What a service tells the topic rebuild about its projections fed by other services' topics. */
export interface TopicProjectionRebuildSpec {
  service: string;
  schema: string;
  /** Rebuilt tables, in the order live writers take them (the swap locks them in this order). */
  tables: string[];
  /** Live tables of the schema the handlers may read as they are (never write). */
  readsLive?: string[];
  consumers: TopicRebuildConsumer[];
}

/** Where reading starts on every partition: the beginning, an offset (clamped) or the first message at or after a time. */
export type TopicStart = { kind: 'earliest' } | { kind: 'offset'; offset: string } | { kind: 'time'; time: Date };

export interface PartitionPlan {
  consumer: string;
  topic: string;
  partition: number;
  /** First offset read. */
  start: string;
  /** High watermark when the rebuild started. */
  end: string;
}

/** The event-store rebuild's options, `pageSize` counting events per write transaction and per inbox lookup (default 2000). */
export interface TopicRebuildOptions extends RebuildOptions {
  from: TopicStart;
}

export interface TopicRebuildReport {
  service: string;
  source: 'topics';
  from: string;
  /** Messages read from the topics, all types. */
  messages: number;
  /** Events applied to the rebuilt tables. */
  events: number;
  /** Events the live consumer passed without applying (dead-lettered, or its group was moved past them). */
  skipped: number;
  /** Events the live consumer had not applied at the swap: it applies them to the rebuilt tables. */
  leftToLiveConsumer: number;
  seconds: number;
  eventsPerSecond: number;
  /** Messages read per second until the ends seen at the start were applied. */
  bulkMessagesPerSecond: number;
  swapLockMs: number;
  rows: Record<string, number>;
  oldSchema: string | null;
  partitions: PartitionPlan[];
}

interface Queued {
  offset: bigint;
  event: DomainEvent;
  handler: EventHandler;
}

interface Cursor {
  plan: PartitionPlan;
  consumer: TopicRebuildConsumer;
  /** Next offset expected from Kafka. */
  read: bigint;
  /** Events of handled types read but not settled yet, in offset order. */
  queue: Queued[];
}

/** Events held in memory at most before the reader waits for the applier. */
const MAX_QUEUED = 50_000;

export function describeStart(from: TopicStart): string {
  return from.kind === 'earliest' ? 'earliest' : from.kind === 'offset' ? `offset ${from.offset}` : `time ${from.time.toISOString()}`;
}

/** Start and end offsets for every partition of every consumer's topics. */
export async function planTopicRebuild(admin: Admin, spec: TopicProjectionRebuildSpec, from: TopicStart): Promise<PartitionPlan[]> {
  const plans: PartitionPlan[] = [];
  for (const c of spec.consumers) {
    for (const topic of c.topics) {
      const offsets = await admin.fetchTopicOffsets(topic);
      const byTime = from.kind === 'time' ? await admin.fetchTopicOffsetsByTimestamp(topic, from.time.getTime()) : [];
      for (const o of offsets.sort((a, b) => a.partition - b.partition)) {
        const low = BigInt(o.low);
        const high = BigInt(o.high);
        let start = low;
        if (from.kind === 'offset') start = BigInt(from.offset);
        if (from.kind === 'time') start = BigInt(byTime.find((t) => t.partition === o.partition)?.offset ?? o.high);
        // No message at or after the time answers -1; an offset outside the log is clamped to it.
        if (start < 0n || start > high) start = high;
        if (start < low) start = low;
        plans.push({ consumer: c.consumer, topic, partition: o.partition, start: start.toString(), end: o.high });
      }
    }
  }
  return plans;
}

/**
 * Rebuilds a service's projections that other services' topics feed: reads the topics from `from`
 * with a throwaway consumer group, applies the live consumers' own handlers to fresh copies of the
 * tables (`<schema>_rebuild_<ts>`), and swaps the copies in while the service keeps consuming and
 * serving (docs/adr/0202-projections-rebuilt-from-topics.md).
 *
 * The copies must hold exactly what the live consumers applied, and the live inbox and applied
 * offsets say what that is: an event is applied when its id is in the consumer's inbox or its offset
 * is at or below the partition's applied offset (and it was not dead-lettered), passed over when not but the
 * live group has committed an offset beyond it (read before the inbox, so a late commit cannot be
 * mistaken for a skip), and otherwise waited for. A live consumer applies a partition in order, so
 * the first waiting event holds back the rest of its partition. Under the swap's locks the live
 * consumers cannot commit an effect on these tables, so what is applied then is final; anything
 * still waiting is left to the live consumer, which applies it to the rebuilt tables after the swap.
 */
export async function rebuildProjectionsFromTopics(
  query: RebuildQuery,
  kafka: Kafka,
  spec: TopicProjectionRebuildSpec,
  options: TopicRebuildOptions,
): Promise<TopicRebuildReport> {
  const pageSize = options.pageSize ?? 2000;
  const ts = Date.now();
  const targetName = `${spec.schema}_rebuild_${ts}`;
  const oldName = `${spec.schema}_old_${ts}`;
  const readerGroup = `${kafkaNamespace()}platformctl.rebuild.${spec.service}.${ts}`;
  const { em, flush } = bufferingRebuildEntityManager(query, tableRedirect(spec.schema, spec.tables, targetName, spec.readsLive));
  const inbox = `${quoteIdent(spec.schema)}.inbox`;
  const offsetsTable = `${quoteIdent(spec.schema)}.consumer_offsets`;
  const deadLetters = `${quoteIdent(spec.schema)}.dead_letters`;
  const started = performance.now();

  const admin = kafka.admin();
  await admin.connect();
  let reader: Consumer | null = null;
  try {
    const plans = await planTopicRebuild(admin, spec, options.from);
    const cursors = plans.map(
      (plan) => ({ plan, consumer: spec.consumers.find((c) => c.consumer === plan.consumer)!, read: BigInt(plan.start), queue: [] }) as Cursor,
    );
    const byPartition = new Map<string, Cursor[]>();
    for (const c of cursors) {
      const key = `${c.plan.topic}:${c.plan.partition}`;
      byPartition.set(key, [...(byPartition.get(key) ?? []), c]);
    }
    const total = cursors.reduce((n, c) => n + Number(BigInt(c.plan.end) - BigInt(c.plan.start)), 0);
    let messages = 0;
    let planned = 0;
    let applied = 0;
    let skipped = 0;
    const appliedIds = new Set<string>();

    let wakeApplier: () => void = () => undefined;
    let wakeReader: () => void = () => undefined;
    let readerError: unknown = null;
    const queued = () => cursors.reduce((n, c) => n + c.queue.length, 0);

    const { secondaryIndexes } = await createRebuildTables(query, spec.schema, spec.tables, targetName);
    {
      // The reader: a group of its own that never commits. It starts at the beginning and seeks to each
      // partition's start; whatever it fetches before a seek applies is below the cursor and ignored.
      const topics = [...new Set(plans.map((p) => p.topic))];
      reader = kafka.consumer({ groupId: readerGroup, allowAutoTopicCreation: false, maxWaitTimeInMs: 100, sessionTimeout: 30_000 });
      reader.on(reader.events.CRASH, (e) => {
        readerError = e.payload.error;
        wakeApplier();
      });
      await reader.connect();
      await reader.subscribe({ topics, fromBeginning: true });
      await reader.run({
        autoCommit: false,
        eachBatch: async ({ batch, heartbeat, isRunning }) => {
          for (const message of batch.messages) {
            const offset = BigInt(message.offset);
            for (const cursor of byPartition.get(`${batch.topic}:${batch.partition}`) ?? []) {
              if (offset < cursor.read) continue;
              cursor.read = offset + 1n;
              messages++;
              if (offset < BigInt(cursor.plan.end)) planned++;
              const parsed = parseEventMessage(message, byEventType(cursor.consumer.handlers));
              if (parsed.kind === 'apply') cursor.queue.push({ offset, event: parsed.event, handler: parsed.handler });
            }
          }
          wakeApplier();
          options.onProgress?.(planned, total);
          while (queued() > MAX_QUEUED && isRunning()) {
            await new Promise<void>((resolve) => {
              wakeReader = resolve;
              setTimeout(resolve, 1000);
            });
            await heartbeat();
          }
        },
      });

      for (const p of plans) reader.seek({ topic: p.topic, partition: p.partition, offset: p.start });

      /** The live groups' committed offsets, by consumer, topic and partition (-1: none yet). */
      const committedOffsets = async (): Promise<Map<string, bigint>> => {
        const out = new Map<string, bigint>();
        await Promise.all(
          spec.consumers.map(async (c) => {
            const groups = await admin.fetchOffsets({ groupId: kafkaNamespace() + c.consumer, topics: c.topics });
            for (const t of groups) for (const p of t.partitions) out.set(`${c.consumer}:${t.topic}:${p.partition}`, BigInt(p.offset));
          }),
        );
        return out;
      };

      /** How far each live consumer applied each partition (consumer_offsets), by consumer, topic and partition. */
      const appliedOffsets = async (): Promise<Map<string, bigint>> => {
        const rows = await query<{ consumer: string; topic: string; partition: number; applied_offset: string }>(
          `select consumer, topic, partition, applied_offset::text as applied_offset from ${offsetsTable} where consumer = any($1::text[])`,
          [pgTextArray(spec.consumers.map((c) => c.consumer))],
        );
        return new Map(rows.map((r) => [`${r.consumer}:${r.topic}:${r.partition}`, BigInt(r.applied_offset)]));
      };

      /**
       * Applies what the live consumer applied at the head of a cursor's queue; false when an event waits.
       * Applied: in the inbox (its window), or at or below the partition's applied offset and not
       * dead-lettered (older than the window, the inbox forgot it; duplicates go by `appliedIds`).
       */
      const drain = async (cursor: Cursor, committed: bigint, appliedUpTo: bigint, inTransaction: boolean): Promise<boolean> => {
        while (cursor.queue.length > 0) {
          const chunk = cursor.queue.slice(0, pageSize);
          const deadRows = await query<{ offset: string }>(
            `select "offset" from ${deadLetters} where consumer = $1 and topic = $2 and partition = $3 and "offset" = any($4::text[])`,
            [cursor.consumer.consumer, cursor.plan.topic, cursor.plan.partition, pgTextArray(chunk.map((q) => String(q.offset)))],
          );
          const deadLettered = new Set(deadRows.map((r) => r.offset));
          const appliedInOrder = (item: Queued) => item.offset <= appliedUpTo && !deadLettered.has(String(item.offset));
          // Only what the applied offset does not answer is looked up in the inbox (at volume, nothing).
          const askInbox = chunk.filter((item) => !appliedInOrder(item));
          const rows =
            askInbox.length === 0
              ? []
              : await query<{ event_id: string }>(`select event_id from ${inbox} where consumer = $1 and event_id = any($2::text[])`, [
                  cursor.consumer.consumer,
                  pgTextArray(askInbox.map((q) => q.event.eventId)),
                ]);
          const inInbox = new Set(rows.map((r) => r.event_id));
          const toApply: Queued[] = [];
          let settled = 0;
          for (const item of chunk) {
            const key = `${cursor.consumer.consumer}\u0000${item.event.eventId}`;
            if (appliedIds.has(key)) {
              settled++;
            } else if (appliedInOrder(item) || inInbox.has(item.event.eventId)) {
              appliedIds.add(key);
              toApply.push(item);
              settled++;
            } else if (item.offset < committed) {
              skipped++;
              settled++;
            } else {
              break;
            }
          }
          if (toApply.length > 0) {
            if (!inTransaction) await query('begin');
            for (const item of toApply) await item.handler(em, item.event);
            await flush();
            if (!inTransaction) await query('commit');
            applied += toApply.length;
          }
          cursor.queue.splice(0, settled);
          if (settled < chunk.length) return false;
        }
        return true;
      };

      /** Rounds until every partition is read to `ends` and applied as far as the live consumer got. */
      const settle = async (ends: Map<string, bigint>, inTransaction: boolean) => {
        for (;;) {
          if (readerError) throw readerError;
          // Offsets before the inbox: an event the inbox lacks and the group passed was really passed over.
          const committed = await committedOffsets();
          const applied = await appliedOffsets();
          let settled = true;
          for (const cursor of cursors) {
            const key = `${cursor.plan.topic}:${cursor.plan.partition}`;
            const consumerKey = `${cursor.consumer.consumer}:${key}`;
            const drained = await drain(cursor, committed.get(consumerKey) ?? -1n, applied.get(consumerKey) ?? -1n, inTransaction);
            if (drained && cursor.read < (ends.get(key) ?? 0n)) settled = false;
          }
          wakeReader();
          if (settled) return;
          await new Promise<void>((resolve) => {
            wakeApplier = resolve;
            setTimeout(resolve, 100);
          });
        }
      };

      const highWatermarks = async (): Promise<Map<string, bigint>> => {
        const out = new Map<string, bigint>();
        const offsets = await Promise.all(topics.map(async (topic) => ({ topic, partitions: await admin.fetchTopicOffsets(topic) })));
        for (const { topic, partitions } of offsets) for (const o of partitions) out.set(`${topic}:${o.partition}`, BigInt(o.high));
        return out;
      };

      // Bulk to the ends seen at the start, the secondary indexes, then catch up to the ends now.
      await settle(new Map(plans.map((p) => [`${p.topic}:${p.partition}`, BigInt(p.end)])), false);
      const bulkSeconds = (performance.now() - started) / 1000;
      const bulkMessages = messages;
      await indexRebuiltTables(query, targetName, spec.tables, secondaryIndexes);
      await options.beforeSwap?.();
      await settle(await highWatermarks(), false);

      const { swapLockMs, rows } = await swapInRebuiltTables(query, {
        schema: spec.schema,
        tables: spec.tables,
        targetName,
        oldName,
        keepOld: options.keepOld ?? false,
        lockTimeoutMs: options.lockTimeoutMs,
        isolation: 'read committed',
        // Ends read under the lock: nothing the live consumers commit from here on touches these tables.
        underLock: async () => settle(await highWatermarks(), true),
      });
      const seconds = (performance.now() - started) / 1000;
      return {
        service: spec.service,
        source: 'topics',
        from: describeStart(options.from),
        messages,
        events: applied,
        skipped,
        leftToLiveConsumer: queued(),
        seconds: round(seconds),
        eventsPerSecond: Math.round(applied / seconds),
        bulkMessagesPerSecond: Math.round(bulkMessages / Math.max(bulkSeconds, 0.001)),
        swapLockMs: round(swapLockMs),
        rows,
        oldSchema: options.keepOld ? oldName : null,
        partitions: plans,
      };
    }
  } catch (error) {
    await query('rollback').catch(() => undefined);
    await query(`drop schema if exists ${quoteIdent(targetName)} cascade`).catch(() => undefined);
    throw error;
  } finally {
    await (reader as Consumer | null)?.disconnect().catch(() => undefined);
    await admin.deleteGroups([readerGroup]).catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;
