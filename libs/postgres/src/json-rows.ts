/**
 * A FROM item over rows sent as one jsonb parameter (`?` placeholder):
 * `(select * from jsonb_to_recordset(?::jsonb) as alias(columns) limit count) as alias`.
 *
 * The limit is how the planner learns how many rows there are. It counts a set-returning function
 * as 100 rows, so a batch of a few rows joined with a large table was planned as a hash join over a
 * sequential scan of the whole table, once per batch, instead of an index lookup per row: the
 * gateway's Idempotency-Key completions and messaging's send batches read every key of the last 24
 * hours each time (1.7 ms per statement at 3 300 keys in the bench, growing with the table).
 *
 * The limit is the count rounded up to a power of two (`rowLimit`): each text is a prepared statement
 * of its own on every connection, planned afresh its first five runs and whenever it is renewed (ADR
 * 0010), so a limit per exact count made a statement per batch size, and messaging's send-batch reads
 * were planned on a quarter of their runs. A limit at most twice the count plans the same lookups.
 */
export function jsonRows(alias: string, columns: string, count: number): string {
  return `(select * from jsonb_to_recordset(?::jsonb) as ${alias}(${columns}) limit ${rowLimit(count, 'jsonRows')}) as ${alias}`;
}

/** jsonRows for a jsonb array of strings: a subquery of its elements, for `x in (…)`. */
export function jsonTexts(count: number): string {
  return `(select jsonb_array_elements_text(?::jsonb) limit ${rowLimit(count, 'jsonTexts')})`;
}

/** The limit jsonRows writes for `count` rows: the least power of two not below it (0 stays 0). */
export function rowLimit(count: number, caller = 'rowLimit'): number {
  if (!Number.isInteger(count) || count < 0) throw new Error(`${caller}: ${count} is not a row count`);
  if (count === 0) return 0;
  let limit = 1;
  while (limit < count) limit *= 2;
  return limit;
}
