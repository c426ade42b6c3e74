import type { EntityManager } from '@mikro-orm/postgresql';
import type { Statement } from '#platform/postgres';
import { quoteIdent } from './schema.sql';

/**
 * Records that `consumer` applied `eventId`, inside the caller's transaction. Returns false when it
 * was already recorded: the caller must then skip the effect (at-least-once in, exactly-once out).
 */
export async function recordInInbox(em: EntityManager, schema: string, consumer: string, eventId: string): Promise<boolean> {
  const rows = await em.execute(`insert into ${quoteIdent(schema)}.inbox (consumer, event_id) values (?, ?) on conflict do nothing returning event_id`, [
    consumer,
    eventId,
  ]);
  return rows.length === 1;
}

/**
 * Records many events at once (one statement); returns the ids not recorded before. An id given
 * twice is returned once: the caller applies only its first occurrence.
 */
export async function recordManyInInbox(em: EntityManager, schema: string, consumer: string, eventIds: string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set();
  const { sql, params } = inboxStatement(schema, consumer, eventIds);
  const rows: { event_id: string }[] = await em.execute(sql, params);
  return new Set(rows.map((row) => row.event_id));
}

/** recordManyInInbox as a statement (for a PipelinedTransaction): its rows are the `event_id`s not recorded before. */
export function inboxStatement(schema: string, consumer: string, eventIds: string[]): Statement {
  return {
    sql: `insert into ${quoteIdent(schema)}.inbox (consumer, event_id) select ?, unnest(?::text[]) on conflict do nothing returning event_id`,
    params: [consumer, pgTextArray(eventIds)],
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
}

export async function recordDeadLetter(em: EntityManager, schema: string, letter: DeadLetter): Promise<void> {
  const { sql, params } = deadLetterStatement(schema, letter);
  await em.execute(sql, params);
}

/** recordDeadLetter as a statement (for a PipelinedTransaction). */
export function deadLetterStatement(schema: string, letter: DeadLetter): Statement {
  return {
    sql: `insert into ${quoteIdent(schema)}.dead_letters (consumer, topic, partition, "offset", event_id, payload, error) values (?, ?, ?, ?, ?, ?, ?)`,
    params: [letter.consumer, letter.topic, letter.partition, letter.offset, letter.eventId, letter.payload, letter.error],
  };
}
