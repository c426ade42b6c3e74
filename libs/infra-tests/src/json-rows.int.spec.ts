/**
 * jsonRows against a real Postgres table: rows sent as one jsonb parameter and joined with a keyed
 * table are looked up by index, however the table grows, and come back exactly as sent.
 */
import { createTestSchema, dropTestSchema, type TestSchema } from './integration.test-helpers';
import { jsonRows, jsonTexts } from '#platform/postgres';

jest.setTimeout(60_000);

describe('jsonRows (Postgres)', () => {
  let db: TestSchema;
  let t: string;

  beforeAll(async () => {
    db = await createTestSchema({
      extraSql: (s) => [
        `create table ${s}.keys (app_id text not null, key text not null, n integer not null, primary key (app_id, key))`,
        `insert into ${s}.keys select 'app', 'k' || i, i from generate_series(1, 5000) as i`,
        `analyze ${s}.keys`,
      ],
    });
    t = `"${db.schema}".keys`;
  });
  afterAll(() => dropTestSchema(db));

  const plan = async (sql: string, params: unknown[]) => {
    const rows: { 'QUERY PLAN': string }[] = await db.em().execute(`explain ${sql}`, params);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };
  const wanted = [
    { app_id: 'app', key: 'k42' },
    { app_id: 'app', key: 'k4242' },
    { app_id: 'app', key: 'missing' },
  ];

  it('joins a few rows with a large table by its index, where the bare function is planned as a scan of the whole table', async () => {
    const join = (from: string) => `select k.key, k.n from ${from} join ${t} k using (app_id, key) order by k.key`;
    const bare = await plan(join(`jsonb_to_recordset(?::jsonb) as c(app_id text, key text)`), [JSON.stringify(wanted)]);
    expect(bare).toContain(`Seq Scan on keys`);

    const sql = join(jsonRows('c', 'app_id text, key text', wanted.length));
    const planned = await plan(sql, [JSON.stringify(wanted)]);
    expect(planned).toMatch(/Index Scan using keys_pkey on keys|Index Only Scan/);
    expect(planned).not.toContain('Seq Scan on keys');
    expect(await db.em().execute(sql, [JSON.stringify(wanted)])).toEqual([
      { key: 'k42', n: 42 },
      { key: 'k4242', n: 4242 },
    ]);
  });

  it('updates only the rows sent, by index', async () => {
    const sql = `update ${t} k set n = c.n from ${jsonRows('c', 'app_id text, key text, n int', 1)} where k.app_id = c.app_id and k.key = c.key returning k.n`;
    const params = [JSON.stringify([{ app_id: 'app', key: 'k7', n: -7 }])];
    expect(await plan(sql, params)).toContain('Index Scan using keys_pkey');
    expect(await db.em().execute(sql, params)).toEqual([{ n: -7 }]);
  });

  it('lists strings for an in (…) test, by index', async () => {
    const sql = `select key from ${t} where app_id = 'app' and key in ${jsonTexts(2)} order by key`;
    const params = [JSON.stringify(['k1', 'k2'])];
    expect(await plan(sql, params)).not.toContain('Seq Scan on keys');
    expect(await db.em().execute(sql, params)).toEqual([{ key: 'k1' }, { key: 'k2' }]);
  });
});
