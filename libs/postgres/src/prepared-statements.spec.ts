import { preparedForm, PreparedStatements } from './prepared-statements';

const literal = (value: unknown) => (typeof value === 'string' ? `'${value}'` : String(value));

describe('preparedForm', () => {
  it('numbers the value placeholders and keeps an escaped question mark', () => {
    expect(preparedForm(`select id from t where a = ? and b @> ?::jsonb and c \\? 'k' and d = ?`, [1, '{"x":1}', null])).toEqual({
      text: `select id from t where a = $1 and b @> $2::jsonb and c ? 'k' and d = $3`,
      values: [1, '{"x":1}', null],
    });
  });

  it('takes dates and plain objects (one literal each), statements without parameters, and the same statement again with other values', () => {
    const at = new Date(0);
    expect(preparedForm(`insert into t (at, doc) values (?, ?)`, [at, { a: 1 }])?.values).toEqual([at, { a: 1 }]);
    expect(preparedForm(`with x as (delete from t returning 1) select count(*) from x`, [])).toEqual({
      text: `with x as (delete from t returning 1) select count(*) from x`,
      values: [],
    });
    expect(preparedForm(`insert into t (at, doc) values (?, ?)`, ['2026-01-01', null])).toEqual({
      text: `insert into t (at, doc) values ($1, $2)`,
      values: ['2026-01-01', null],
    });
  });

  it('leaves as plain statements what would not be one parameter per placeholder, or what prepare does not take', () => {
    expect(preparedForm(`select * from t where id in (?)`, [['a', 'b']])).toBeNull();
    expect(preparedForm(`select * from t where b = ?`, [Buffer.from('x')])).toBeNull();
    expect(preparedForm(`select * from t where a = ?`, [1, 2])).toBeNull();
    expect(preparedForm(`select 1; select 2`, [])).toBeNull();
    expect(preparedForm(`select * from ?? where a = ?`, ['t', 1])).toBeNull();
    expect(preparedForm(`set local lock_timeout = '1s'`, [])).toBeNull();
    expect(preparedForm(`lock table t in exclusive mode`, [])).toBeNull();
  });
});

describe('PreparedStatements', () => {
  const form = { text: 'select * from t where a = $1', values: [7] };

  it('prepares a statement on first use and only executes it once that round trip succeeded', () => {
    const statements = new PreparedStatements();
    expect(statements.preamble()).toEqual([]);
    expect(statements.sqlFor(form, literal)).toEqual(['prepare ps_1 as select * from t where a = $1', 'execute ps_1(7)']);
    // A second use in the same round trip rides on the same prepare.
    expect(statements.sqlFor({ ...form, values: [8] }, literal)).toEqual(['execute ps_1(8)']);
    statements.succeeded();
    expect(statements.size).toBe(1);
    expect(statements.preamble()).toEqual([]);
    expect(statements.sqlFor({ ...form, values: [9] }, literal)).toEqual(['execute ps_1(9)']);
    expect(statements.sqlFor({ text: 'select 1', values: [] }, literal)).toEqual(['prepare ps_2 as select 1', 'execute ps_2']);
  });

  it('after a failed round trip, deallocates everything first and prepares again under new names', () => {
    const statements = new PreparedStatements();
    statements.sqlFor(form, literal);
    statements.succeeded();
    statements.sqlFor({ text: 'select 2', values: [] }, literal);
    statements.failed();
    expect(statements.size).toBe(0);
    expect(statements.preamble()).toEqual(['deallocate all']);
    expect(statements.sqlFor(form, literal)).toEqual(['prepare ps_3 as select * from t where a = $1', 'execute ps_3(7)']);
    statements.succeeded();
    expect(statements.preamble()).toEqual([]);
  });

  it('at capacity, deallocates everything before the next round trip and starts over', () => {
    const statements = new PreparedStatements(2);
    statements.sqlFor({ text: 'select 1', values: [] }, literal);
    statements.sqlFor({ text: 'select 2', values: [] }, literal);
    statements.succeeded();
    expect(statements.size).toBe(2);
    expect(statements.preamble()).toEqual(['deallocate all']);
    expect(statements.size).toBe(0);
    expect(statements.sqlFor({ text: 'select 1', values: [] }, literal)).toEqual(['prepare ps_3 as select 1', 'execute ps_3']);
  });

  it('prepares everything afresh once it is a second old, then two, four, … seconds, and at most every maxPlanAgeMs', () => {
    let now = 0;
    const statements = new PreparedStatements(256, () => now, 5000);
    const replannedAt: number[] = [];
    for (now = 0; now <= 20_000; now += 100) {
      if (statements.preamble().length > 0) replannedAt.push(now);
      statements.sqlFor(form, literal);
      statements.succeeded();
    }
    // Generic plans are fixed by the table sizes of their first executions, so they are renewed as tables grow.
    expect(replannedAt).toEqual([1000, 3000, 7000, 12_000, 17_000]);
  });

  it('has nothing to deallocate when the plan age passes before anything was prepared', () => {
    let now = 0;
    const statements = new PreparedStatements(256, () => now);
    now = 1500;
    expect(statements.preamble()).toEqual([]);
    expect(statements.sqlFor(form, literal)).toEqual(['prepare ps_1 as select * from t where a = $1', 'execute ps_1(7)']);
  });
});
