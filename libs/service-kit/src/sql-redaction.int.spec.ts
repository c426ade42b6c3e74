import type { PostgresOrm } from '#platform/postgres';
import { createOrm } from './database';
import { redactSql } from './sql-redaction';

/** A real MikroORM/knex/pg error, as a service's catch block would stringify it for the log. */
describe('redactSql on real database errors (Postgres)', () => {
  let orm: PostgresOrm;
  beforeAll(async () => {
    orm = await createOrm({ url: process.env.DATABASE_URL as string, schema: 'public', entities: [], migrations: [] });
  });
  afterAll(() => orm?.close());

  async function failure(sql: string, params: unknown[]): Promise<string> {
    try {
      await orm.em.fork().execute(sql, params);
    } catch (error) {
      return String((error as Error).stack ?? error);
    }
    throw new Error('the statement did not fail');
  }

  it('keeps no parameter value of a failed statement, and the reason Postgres gave', async () => {
    const text = await failure(`select ?::int as x, ? as y`, ['whsec_NotInLogs1', 'verify-token-not-in-logs']);
    expect(text).toContain('whsec_NotInLogs1');
    const redacted = redactSql(text);
    expect(redacted).not.toMatch(/whsec_NotInLogs1|verify-token-not-in-logs/);
    expect(redacted).toContain('invalid input syntax for type integer');
  });
});
