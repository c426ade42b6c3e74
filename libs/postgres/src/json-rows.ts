/**
 * A FROM item over rows sent as one jsonb parameter (`?` placeholder):
 * `(select * from jsonb_to_recordset(?::jsonb) as alias(columns) limit count) as alias`.
 *
 * The limit is how the planner learns how many rows there are. It counts a set-returning function
 * as 100 rows, so a batch of a few rows joined with a large table was planned as a hash join over a
 * sequential scan of the whole table, once per batch, instead of an index lookup per row: the
 * gateway's Idempotency-Key completions and messaging's send batches read every key of the last 24
 * hours each time (1.7 ms per statement at 3 300 keys in the bench, growing with the table).
 */
export function jsonRows(alias: string, columns: string, count: number): string {
  if (!Number.isInteger(count) || count < 0) throw new Error(`jsonRows: ${count} is not a row count`);
  return `(select * from jsonb_to_recordset(?::jsonb) as ${alias}(${columns}) limit ${count}) as ${alias}`;
}

/** jsonRows for a jsonb array of strings: a subquery of its elements, for `x in (…)`. */
export function jsonTexts(count: number): string {
  if (!Number.isInteger(count) || count < 0) throw new Error(`jsonTexts: ${count} is not a row count`);
  return `(select jsonb_array_elements_text(?::jsonb) limit ${count})`;
}
