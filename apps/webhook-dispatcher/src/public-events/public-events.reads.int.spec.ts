import { Client } from 'pg';
import { preparedForm, quoteText, type Statement } from '#platform/postgres';
import { liveSessionsStatement } from '../listen/listen-session.records';
import { enabledEndpointsStatement } from './public-events.records';

/**
 * The public-events consumer reads the apps' endpoints and listen sessions once per slice of events,
 * as statements prepared on their connection (PipelinedTransaction). Against the dispatcher's real
 * tables: after Postgres's five custom plans, each keeps one generic plan instead of being planned
 * again for every slice.
 */
let client: Client;
beforeAll(async () => {
  client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

/** A value as PipelinedTransaction writes it into `execute`. */
const literal = (value: unknown): string => (value instanceof Date ? `${quoteText(value.toISOString())}::timestamptz` : quoteText(String(value)));

/** Prepares the statement as PipelinedTransaction does, runs it `times` with these apps, and says how Postgres planned it. */
async function plansAfter(name: string, statementFor: (appIds: string[]) => Statement, times: number): Promise<{ generic: number; custom: number }> {
  const first = preparedForm(statementFor(['app_reads_test_0']).sql, statementFor(['app_reads_test_0']).params ?? []);
  if (!first) throw new Error('the statement would go as plain text, never prepared');
  await client.query(`prepare ${name} as ${first.text}`);
  for (let i = 0; i < times; i++) {
    const form = preparedForm(statementFor([`app_reads_test_${i}`]).sql, statementFor([`app_reads_test_${i}`]).params ?? []);
    expect(form?.text).toBe(first.text);
    await client.query(`execute ${name}(${form!.values.map(literal).join(', ')})`);
  }
  const { rows } = await client.query<{ generic_plans: string; custom_plans: string }>(
    `select generic_plans, custom_plans from pg_prepared_statements where name = $1`,
    [name],
  );
  await client.query(`deallocate ${name}`);
  return { generic: Number(rows[0].generic_plans), custom: Number(rows[0].custom_plans) };
}

describe('public-events reads (integration)', () => {
  it("the apps' enabled endpoints keep a generic plan", async () => {
    expect(await plansAfter('reads_test_endpoints', enabledEndpointsStatement, 12)).toEqual({ generic: 7, custom: 5 });
  });

  it("the apps' live listen sessions keep a generic plan", async () => {
    const now = new Date();
    expect(await plansAfter('reads_test_sessions', (appIds) => liveSessionsStatement(appIds, now), 12)).toEqual({ generic: 7, custom: 5 });
  });
});
