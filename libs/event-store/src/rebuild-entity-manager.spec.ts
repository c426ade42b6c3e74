import { bufferingRebuildEntityManager, tableRedirect, toNumberedParameters, withInlineParameters } from './rebuild-entity-manager';

describe('toNumberedParameters', () => {
  it('numbers each binding in order', () => {
    expect(toNumberedParameters('insert into t (a, b) values (?, ?) on conflict do nothing')).toBe(
      'insert into t (a, b) values ($1, $2) on conflict do nothing',
    );
  });

  it('leaves question marks inside string literals and quoted identifiers alone', () => {
    expect(toNumberedParameters(`select '?', 'it''s ?', "odd?name" from t where a = ?`)).toBe(`select '?', 'it''s ?', "odd?name" from t where a = $1`);
  });

  it('turns an escaped question mark into a literal one (a jsonb operator)', () => {
    expect(toNumberedParameters('select data \\? ? from t')).toBe('select data ? $1 from t');
  });

  it('refuses identifier bindings and unterminated quotes', () => {
    expect(() => toNumberedParameters('select ?? from t')).toThrow(/identifier bindings/);
    expect(() => toNumberedParameters("select 'open from t where a = ?")).toThrow(/unterminated/);
  });
});

describe('tableRedirect', () => {
  const redirect = tableRedirect('messaging', ['consents', 'app_users'], 'messaging_rebuild_1');

  it('points every rebuilt table, also as a column qualifier, at the copy', () => {
    expect(redirect('insert into messaging.consents (a) values (?) on conflict (a) do update set v = excluded.v where messaging.consents.v < excluded.v')).toBe(
      'insert into "messaging_rebuild_1".consents (a) values (?) on conflict (a) do update set v = excluded.v where "messaging_rebuild_1".consents.v < excluded.v',
    );
    expect(redirect('insert into messaging.app_users values (?)')).toBe('insert into "messaging_rebuild_1".app_users values (?)');
  });

  it('refuses a statement that touches another table of the schema, so a rebuild never writes live tables', () => {
    expect(() => redirect('insert into messaging.messages values (?)')).toThrow(/messaging\.messages/);
    // A longer name that starts like a rebuilt table is another table.
    expect(() => redirect('update messaging.consents_history set a = ?')).toThrow(/consents_history/);
  });

  it('leaves other schemas and look-alike names alone', () => {
    expect(redirect('select 1 from other.consents, my_messaging.consents')).toBe('select 1 from other.consents, my_messaging.consents');
  });
});

describe('tableRedirect with live tables the handlers only read', () => {
  const redirect = tableRedirect('consent', ['reply_windows'], 'consent_rebuild_3', ['refused_user_actions']);

  it('leaves them pointing at the live schema and still refuses the rest', () => {
    expect(redirect('select 1 from consent.refused_user_actions where event_id = ?')).toBe('select 1 from consent.refused_user_actions where event_id = ?');
    expect(() => redirect('select 1 from consent.refused_user_actions_old')).toThrow(/refused_user_actions_old/);
    expect(() => redirect('insert into consent.consents values (?)')).toThrow(/consent\.consents/);
  });
});

describe('withInlineParameters', () => {
  it('writes each parameter as the literal text pg would send for it', () => {
    const at = new Date('2026-11-22T09:50:20.123Z');
    const sql = withInlineParameters('insert into t values (?, ?, ?, ?, ?, ?::jsonb, ?)', ["it's", 42, true, null, at, { a: 'b' }, 'back\\slash']);
    expect(sql).toMatch(
      /^insert into t values \('it''s', '42', 'true', null, '2026-11-22T\d\d:\d\d:20\.123[+-]\d\d:\d\d', '\{"a":"b"\}'::jsonb,  E'back\\\\slash'\)$/,
    );
  });

  it('refuses a statement with more bindings than parameters', () => {
    expect(() => withInlineParameters('select ?, ?', [1])).toThrow(/more bindings/);
  });
});

describe('bufferingRebuildEntityManager', () => {
  const recorder = () => {
    const sent: [string, unknown[] | undefined][] = [];
    const query = async (sql: string, params?: unknown[]) => {
      sent.push([sql, params]);
      return [{ seq: 7 }] as never;
    };
    return { sent, query };
  };

  it('sends statements without results together, and everything in call order', async () => {
    const { sent, query } = recorder();
    const { em, flush } = bufferingRebuildEntityManager(query, tableRedirect('consent', ['consents', 'consent_list_seq'], 'consent_rebuild_4'));
    expect(await em.execute('insert into consent.consents values (?)', ['a'])).toEqual([]);
    expect(await em.execute('update consent.consents set s = ? where k = ?', ['b', 'a'])).toEqual([]);
    expect(sent).toEqual([]);
    // A result the handler reads: what was buffered goes first.
    expect(await em.execute('insert into consent.consent_list_seq values (?) returning seq', ['a'])).toEqual([{ seq: 7 }]);
    await em.execute('delete from consent.consents where k = ?', ['a']);
    await flush();
    await flush();
    expect(sent).toEqual([
      [`insert into "consent_rebuild_4".consents values ('a');\nupdate "consent_rebuild_4".consents set s = 'b' where k = 'a'`, undefined],
      ['insert into "consent_rebuild_4".consent_list_seq values ($1) returning seq', ['a']],
      [`delete from "consent_rebuild_4".consents where k = 'a'`, undefined],
    ]);
  });
});
