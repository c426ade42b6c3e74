import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ExpiredRows {
  /** Schema-qualified table, e.g. `messaging.send_requests` (code, never input). */
  table: string;
  /** The timestamp column that ages the rows; it needs an index. */
  column: string;
  /** Rows whose column is before this are deleted. */
  before: Date;
  /** Rows per statement (default 5 000). */
  batchSize?: number;
}

/**
 * Deletes expired rows oldest first, a batch per statement (each its own transaction), until none
 * is left; returns how many went. A day's backlog after an outage is then many short statements
 * rather than one transaction holding every row lock and the whole WAL for it.
 *
 * Rows are picked by `ctid` and the age is checked again on delete: a row updated meanwhile (an
 * expired key taken over by a new request, with a new timestamp) is a new row version, which the
 * recheck of `ctid` and age leaves alone.
 */
export async function deleteExpiredRows(em: EntityManager, { table, column, before, batchSize = 5000 }: ExpiredRows): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await em.execute<QueryResult>(
      `delete from ${table} where ctid = any(array(select ctid from ${table} where ${column} < ? order by ${column} limit ?)) and ${column} < ?`,
      [before, batchSize, before],
      'run',
    );
    deleted += result.affectedRows;
    if (result.affectedRows < batchSize) return deleted;
  }
}

/** A table's retention: rows whose `column` (indexed) is older than `keepMs` go. */
export interface TableRetention {
  /** Schema-qualified, as SQL names it (code, never input). */
  table: string;
  /** The name the rows deleted are counted under (default: `table`). */
  label?: string;
  column: string;
  keepMs: number;
}

/**
 * Deletes each table's rows older than its retention at `nowMs` (deleteExpiredRows), table by table,
 * telling `onDeleted` each table's count as soon as it is done (a later table's failure leaves it told).
 */
export async function deleteExpiredTables(
  em: () => EntityManager,
  tables: readonly TableRetention[],
  nowMs: number,
  onDeleted: (label: string, rows: number) => void,
): Promise<void> {
  for (const { table, label, column, keepMs } of tables) {
    onDeleted(label ?? table, await deleteExpiredRows(em(), { table, column, before: new Date(nowMs - keepMs) }));
  }
}
