import { rebuildEntityManager, tableRedirect, toNumberedParameters } from './rebuild-entity-manager';

describe('toNumberedParameters', () => {
  it('numbers each binding in order', () => {
    expect(toNumberedParameters('insert into t (a, b) values (?, ?) on conflict do nothing')).toBe('insert into t (a, b) values ($1, $2) on conflict do nothing');
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
    expect(
      redirect(
        'insert into messaging.consents (a) values (?) on conflict (a) do update set v = excluded.v where messaging.consents.v < excluded.v',
      ),
    ).toBe('insert into "messaging_rebuild_1".consents (a) values (?) on conflict (a) do update set v = excluded.v where "messaging_rebuild_1".consents.v < excluded.v');
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

describe('rebuildEntityManager', () => {
  it('runs a handler statement against the copy with numbered parameters', async () => {
    const seen: [string, unknown[] | undefined][] = [];
    const em = rebuildEntityManager(
      async (sql, params) => {
        seen.push([sql, params]);
        return [{ ok: true }] as never;
      },
      tableRedirect('gateway', ['app_access'], 'gateway_rebuild_2'),
    );
    expect(await em.execute('update gateway.app_access set status = ? where app_id = ?', ['suspended', 'app_1'])).toEqual([{ ok: true }]);
    expect(seen).toEqual([['update "gateway_rebuild_2".app_access set status = $1 where app_id = $2', ['suspended', 'app_1']]]);
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
