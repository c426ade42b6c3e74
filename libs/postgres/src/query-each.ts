import type { QueryResult, QueryResultRow } from 'pg';
import type { Statement } from './pipelined-transaction';

/**
 * The result of each statement of a text holding several, in order. pg answers such a text with an
 * array of results, but its types name only the one-statement answer; a single statement's result
 * comes back as an array of one.
 */
export async function queryEach(client: { query(text: string): Promise<QueryResult> }, text: string): Promise<QueryResult[]> {
  const result: QueryResult | QueryResult[] = await client.query(text);
  return Array.isArray(result) ? result : [result];
}

/**
 * A Statement (written with `?` placeholders, as the services' SQL is) run on a plain pg client,
 * its placeholders numbered as pg wants them: the rows. For tools and tests that hold a raw session.
 */
export async function queryStatement<T extends QueryResultRow = Record<string, unknown>>(
  client: { query<R extends QueryResultRow>(text: string, values: unknown[]): Promise<QueryResult<R>> },
  statement: Statement,
): Promise<T[]> {
  let n = 0;
  return (
    await client.query<T>(
      statement.sql.replace(/\?/g, () => `$${++n}`),
      (statement.params ?? []) as unknown[],
    )
  ).rows;
}
