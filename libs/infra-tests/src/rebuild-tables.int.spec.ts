/**
 * createRebuildTables against a real Postgres schema: the copies get the keys at once, the secondary
 * indexes a projection reads through while it is folded (`duringLoad`) before the load, and every
 * other secondary index only after it.
 */
import { createRebuildTables, indexRebuiltTables, type RebuildQuery } from '#platform/event-store';
import { adminQuery, createTestSchema, dropTestSchema, uniqueName, type TestSchema } from './integration.test-helpers';

jest.setTimeout(60_000);

describe('createRebuildTables (Postgres)', () => {
  let db: TestSchema;
  const target = uniqueName('rebuild_copy');
  const query: RebuildQuery = async <R>(sql: string, params: unknown[] = []) => (await adminQuery(sql, params)) as R[];

  beforeAll(async () => {
    db = await createTestSchema({
      prefix: 'rebuild_tables',
      extraSql: (s) => [
        `create table ${s}.versions (app_id text not null, seq bigint not null, user_id text not null, valid_to bigint, updated_at timestamptz not null, primary key (app_id, seq))`,
        `create index versions_current_idx on ${s}.versions (app_id, user_id) where valid_to is null`,
        `create index versions_list_idx on ${s}.versions (app_id, updated_at desc)`,
      ],
    });
  });
  afterAll(async () => {
    await adminQuery(`drop schema if exists "${target}" cascade`);
    await dropTestSchema(db);
  });

  const indexesOn = async (schema: string) =>
    (
      await adminQuery<{ indexname: string }>(`select indexname from pg_indexes where schemaname = $1 and tablename = 'versions' order by indexname`, [schema])
    ).map((r) => r.indexname);

  it('builds the indexes the folding reads through before the load and the others after it', async () => {
    const { secondaryIndexes } = await createRebuildTables(query, db.schema, ['versions'], target, ['versions_current_idx']);
    expect(await indexesOn(target)).toEqual(['versions_current_idx', 'versions_pkey']);
    expect(secondaryIndexes).toHaveLength(1);
    expect(secondaryIndexes[0]).toContain('versions_list_idx');

    // A fold that closes the current version reads through the index, not the copy's heap.
    await adminQuery(`insert into "${target}".versions select 'app', i, 'u' || i, null, now() from generate_series(1, 20000) i`);
    await adminQuery(`analyze "${target}".versions`);
    const [plan] = await adminQuery<{ 'QUERY PLAN': string }>(
      `explain update "${target}".versions set valid_to = 1 where app_id = 'app' and user_id = 'u5' and valid_to is null`,
    );
    expect(JSON.stringify(plan)).not.toMatch(/Seq Scan/);

    await indexRebuiltTables(query, target, ['versions'], secondaryIndexes);
    expect(await indexesOn(target)).toEqual(['versions_current_idx', 'versions_list_idx', 'versions_pkey']);
  });
});
