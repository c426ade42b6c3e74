import type { EntityManager } from '@mikro-orm/postgresql';
import type { Statement } from '#platform/postgres';
import { quoteIdent } from './schema.sql';

/** How far a consumer applied a partition, and how far the events at hand take it. */
export interface PartitionProgress {
  topic: string;
  partition: number;
  /** The highest offset of the events at hand (as Kafka gives it, a decimal string). */
  lastOffset: string;
}

/**
 * In the effect's transaction, one statement: moves the consumer's applied offsets to the events at
 * hand (never back), records their ids in the inbox, and answers both what was applied before (rows
 * with `topic`, `partition`, `applied_offset`: an event at or below it was applied already, whatever
 * the inbox still remembers) and the ids not recorded before (rows with `event_id`). `at` is the
 * service's clock, which the inbox's window is counted by. Read the rows with `consumerProgress`.
 */
export function consumerProgressStatement(schema: string, consumer: string, progress: PartitionProgress[], eventIds: string[], at: Date): Statement {
  const s = quoteIdent(schema);
  return {
    sql: `with wanted as (select * from unnest(?::text[], ?::int[], ?::bigint[]) as w(topic, partition, last_offset)),
      before as (select o.topic, o.partition, o.applied_offset from ${s}.consumer_offsets o join wanted w using (topic, partition) where o.consumer = ?),
      moved as (insert into ${s}.consumer_offsets (consumer, topic, partition, applied_offset) select ?, topic, partition, max(last_offset) from wanted group by topic, partition
        on conflict (consumer, topic, partition) do update set applied_offset = greatest(${s}.consumer_offsets.applied_offset, excluded.applied_offset)),
      fresh as (insert into ${s}.inbox (consumer, event_id, processed_at) select ?, unnest(?::text[]), ? on conflict do nothing returning event_id)
      select topic, partition, applied_offset::text as applied_offset, null::text as event_id from before
      union all select null, null, null, event_id from fresh`,
    params: [
      pgTextArray(progress.map((p) => p.topic)),
      `{${progress.map((p) => p.partition).join(',')}}`,
      `{${progress.map((p) => p.lastOffset).join(',')}}`,
      consumer,
      consumer,
      consumer,
      pgTextArray(eventIds),
      at,
    ],
  };
}

/** The rows of consumerProgressStatement: offsets applied before by `topic:partition` (absent: none), and the ids new to the inbox. */
export function consumerProgress(rows: Record<string, unknown>[]): { before: Map<string, bigint>; fresh: Set<string> } {
  const before = new Map<string, bigint>();
  const fresh = new Set<string>();
  for (const row of rows) {
    if (row.event_id !== null && row.event_id !== undefined) fresh.add(String(row.event_id));
    else before.set(`${String(row.topic)}:${Number(row.partition)}`, BigInt(String(row.applied_offset)));
  }
  return { before, fresh };
}

/**
 * Which of these offsets of a partition the consumer dead-lettered: a replay over them applies them
 * again (the fix was deployed), where every other offset at or below the applied one is passed over.
 * Rows: `offset`.
 */
export function deadLetteredOffsetsStatement(schema: string, consumer: string, topic: string, partition: number, offsets: string[]): Statement {
  return {
    sql: `select distinct "offset" from ${quoteIdent(schema)}.dead_letters where consumer = ? and topic = ? and partition = ? and "offset" = any(?::text[])`,
    params: [consumer, topic, partition, pgTextArray(offsets)],
  };
}

/** Removes the dead letters of offsets now applied (a replay over them succeeded), in that transaction. */
export function deadLettersAppliedStatement(schema: string, consumer: string, topic: string, partition: number, offsets: string[]): Statement {
  return {
    sql: `delete from ${quoteIdent(schema)}.dead_letters where consumer = ? and topic = ? and partition = ? and "offset" = any(?::text[])`,
    params: [consumer, topic, partition, pgTextArray(offsets)],
  };
}

/** A Postgres text[] literal (raw bindings would expand a JS array into a list of parameters). */
export function pgTextArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}

export interface DeadLetter {
  consumer: string;
  topic: string;
  partition: number;
  offset: string;
  eventId: string | null;
  payload: string;
  error: string;
  /** When it was dead-lettered, by the service's clock (its retention counts from here). */
  createdAt: Date;
}

export async function recordDeadLetter(em: EntityManager, schema: string, letter: DeadLetter): Promise<void> {
  const { sql, params } = deadLetterStatement(schema, letter);
  await em.execute(sql, params);
}

/** recordDeadLetter as a statement (for a PipelinedTransaction). */
export function deadLetterStatement(schema: string, letter: DeadLetter): Statement {
  return {
    sql: `insert into ${quoteIdent(schema)}.dead_letters (consumer, topic, partition, "offset", event_id, payload, error, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [letter.consumer, letter.topic, letter.partition, letter.offset, letter.eventId, letter.payload, letter.error, letter.createdAt],
  };
}
