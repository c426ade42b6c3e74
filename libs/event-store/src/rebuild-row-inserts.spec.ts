import { parseRowInsert, RowInsertCoalescer } from './rebuild-row-inserts';

const APP_USER = 'insert into r.app_users (app_id, app_user_id, user_id) values (?, ?, ?) on conflict do nothing';
const CONSENT = `insert into r.consents (app_id, app_user_id, status, version) values (?, ?, ?, ?)
         on conflict (app_id, app_user_id) do update set status = excluded.status, version = excluded.version where r.consents.version < excluded.version`;

/** Feeds statements as the buffering entity manager does and answers what it would send. */
function run(statements: [string, unknown[]][]): string[] {
  const rows = new RowInsertCoalescer();
  const sent: string[] = [];
  for (const [sql, params] of statements) {
    const ended = rows.add(sql, params);
    if (ended) sent.push(...ended);
    else sent.push(...rows.end(), `${sql} -- ${JSON.stringify(params)}`);
  }
  return [...sent, ...rows.end()];
}

describe('RowInsertCoalescer', () => {
  it('writes a run of one shape as one multi-row insert, rows in call order', () => {
    expect(
      run([
        [APP_USER, ['a', 'u1', 'x1']],
        [APP_USER, ['a', 'u2', 'x2']],
        [APP_USER, ['a', "o'k", 'x3']],
      ]),
    ).toEqual([
      `insert into r.app_users (app_id, app_user_id, user_id) values ('a', 'u1', 'x1'), ('a', 'u2', 'x2'), ('a', 'o''k', 'x3') on conflict do nothing`,
    ]);
  });

  it('groups interleaved statements of different tables per table', () => {
    const sent = run([
      [APP_USER, ['a', 'u1', 'x1']],
      [CONSENT, ['a', 'u1', 'opted_in', 1]],
      [APP_USER, ['a', 'u2', 'x2']],
      [CONSENT, ['a', 'u2', 'opted_in', 1]],
    ]);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(`insert into r.app_users (app_id, app_user_id, user_id) values ('a', 'u1', 'x1'), ('a', 'u2', 'x2') on conflict do nothing`);
    expect(sent[1]).toMatch(
      /^insert into r\.consents \(app_id, app_user_id, status, version\) values \('a', 'u1', 'opted_in', '1'\), \('a', 'u2', 'opted_in', '1'\)\s+on conflict/,
    );
  });

  it('ends the groups before an upsert would update one row twice in a statement', () => {
    const sent = run([
      [CONSENT, ['a', 'u1', 'opted_in', 1]],
      [CONSENT, ['a', 'u2', 'opted_in', 1]],
      [CONSENT, ['a', 'u1', 'opted_out', 2]],
    ]);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toContain(`values ('a', 'u1', 'opted_in', '1'), ('a', 'u2', 'opted_in', '1')`);
    expect(sent[1]).toContain(`values ('a', 'u1', 'opted_out', '2')`);
  });

  it('keeps the order of two shapes on one table, and of any other statement', () => {
    const other = 'insert into r.app_users (app_id, app_user_id, user_id) values (?, ?, ?)';
    const sent = run([
      [APP_USER, ['a', 'u1', 'x1']],
      [other, ['a', 'u2', 'x2']],
      ['update r.app_users set user_id = ? where app_user_id = ?', ['x3', 'u2']],
      [APP_USER, ['a', 'u3', 'x3']],
    ]);
    expect(sent).toEqual([
      `insert into r.app_users (app_id, app_user_id, user_id) values ('a', 'u1', 'x1') on conflict do nothing`,
      `insert into r.app_users (app_id, app_user_id, user_id) values ('a', 'u2', 'x2')`,
      `update r.app_users set user_id = ? where app_user_id = ? -- ["x3","u2"]`,
      `insert into r.app_users (app_id, app_user_id, user_id) values ('a', 'u3', 'x3') on conflict do nothing`,
    ]);
  });
});

describe('parseRowInsert', () => {
  it('takes single-row inserts with bindings, casts and constants in the row', () => {
    expect(
      parseRowInsert(`insert into "s_rebuild_1".apps (app_id, status, data) values (?, 'sandbox', ?::jsonb) on conflict (app_id) do nothing`),
    ).toMatchObject({
      table: 's_rebuild_1.apps',
      conflictColumns: null,
    });
    expect(parseRowInsert('insert into r.t values (?)')).toMatchObject({ table: 'r.t', row: '?' });
    // One table however it is spelled, so that its statements are never reordered.
    expect(parseRowInsert('insert into "R".T values (?)')).toMatchObject({ table: 'r.t' });
    expect(parseRowInsert(CONSENT)).toMatchObject({ table: 'r.consents', conflictColumns: [0, 1] });
  });

  it('refuses what one multi-row statement could not say the same', () => {
    // A binding outside the row, a function call or subquery, more rows or a result already, an upsert without its target.
    expect(parseRowInsert('insert into r.t (a, v) values (?, ?) on conflict (a) do update set v = ? ')).toBeNull();
    expect(parseRowInsert('insert into r.t (a, at) values (?, now())')).toBeNull();
    expect(parseRowInsert('insert into r.t (a, v) values (?, ?) on conflict (a) do update set v = (select max(v) from r.u)')).toBeNull();
    expect(parseRowInsert('insert into r.t (a) values (?), (?)')).toBeNull();
    expect(parseRowInsert('insert into r.t (a) values (?) returning a')).toBeNull();
    expect(parseRowInsert('insert into r.t (a) select ? where true')).toBeNull();
    expect(parseRowInsert('insert into r.t (a, v) values (?, ?) on conflict on constraint t_pkey do update set v = excluded.v')).toBeNull();
    expect(parseRowInsert('insert into r.t values (?, ?) on conflict (a) do update set v = excluded.v')).toBeNull();
    expect(parseRowInsert('update r.t set a = ?')).toBeNull();
  });
});
