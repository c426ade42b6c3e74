import type { QueryResult } from 'pg';

/**
 * The result of each statement of a text holding several, in order. pg answers such a text with an
 * array of results, but its types name only the one-statement answer; a single statement's result
 * comes back as an array of one.
 */
export async function queryEach(client: { query(text: string): Promise<QueryResult> }, text: string): Promise<QueryResult[]> {
  const result: QueryResult | QueryResult[] = await client.query(text);
  return Array.isArray(result) ? result : [result];
}
