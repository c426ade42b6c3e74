/**
 * deleteExpiredRows against a real Postgres table: every row older than the cutoff goes, in
 * batches, and nothing newer does, including a row brought up to date while a batch ran.
 */
import { deleteExpiredRows } from '#platform/postgres';
import { createTestSchema, dropTestSchema, waitFor, type TestSchema } from './integration.test-helpers';

jest.setTimeout(60_000);

describe('deleteExpiredRows (Postgres)', () => {
  let db: TestSchema;
  let t: string;
  const cutoff = new Date('2026-11-20T00:00:00Z');

  beforeAll(async () => {
    db = await createTestSchema({
      extraSql: (s) => [`create table ${s}.claims (key text primary key, created_at timestamptz not null)`, `create index on ${s}.claims (created_at)`],
    });
    t = `"${db.schema}".claims`;
  });
  afterAll(() => dropTestSchema(db));

  const keys = async () => ((await db.em().execute(`select key from ${t} order by key`)) as { key: string }[]).map((row) => row.key);

  it('deletes every row before the cutoff in batches and keeps the rest', async () => {
    await db.em().execute(`delete from ${t}`);
    // 23 expired rows (one a millisecond before the cutoff), two at or after it.
    await db
      .em()
      .execute(`insert into ${t} select 'old' || lpad(i::text, 2, '0'), ?::timestamptz - i * interval '1 millisecond' from generate_series(1, 23) as i`, [
        cutoff,
      ]);
    await db.em().execute(`insert into ${t} values ('at', ?), ('new', ?::timestamptz + interval '1 hour')`, [cutoff, cutoff]);

    expect(await deleteExpiredRows(db.em(), { table: t, column: 'created_at', before: cutoff, batchSize: 5 })).toBe(23);
    expect(await keys()).toEqual(['at', 'new']);
    expect(await deleteExpiredRows(db.em(), { table: t, column: 'created_at', before: cutoff, batchSize: 5 })).toBe(0);
  });

  it('leaves a row that another transaction renewed while the delete waited for it', async () => {
    await db.em().execute(`delete from ${t}`);
    await db
      .em()
      .execute(`insert into ${t} values ('taken-over', ?::timestamptz - interval '1 hour'), ('stale', ?::timestamptz - interval '1 hour')`, [cutoff, cutoff]);
    const renewing = db.em();
    await renewing.begin();
    await renewing.execute(`update ${t} set created_at = ?::timestamptz + interval '1 day' where key = 'taken-over'`, [cutoff]);

    // The delete picks both rows, then waits on the renewed one's lock until the renewal commits.
    const deleting = deleteExpiredRows(db.em(), { table: t, column: 'created_at', before: cutoff });
    await waitFor('the delete to wait for the row lock', async () => {
      const [row] = await db.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return row.n > 0;
    });
    await renewing.commit();

    expect(await deleting).toBe(1);
    expect(await keys()).toEqual(['taken-over']);
  });
});
