/**
 * PipelinedTransaction against a real Postgres service schema: several statements to a round trip
 * with begin and commit riding along, all or nothing on an error in any round trip, appendStatements
 * running inside it, hooks run after the commit only, and the pooled connection clean for its next
 * user; statements prepared once per connection and executed by name after that, also by `execute`
 * outside a transaction.
 */
import type { DomainEvent } from '#platform/contracts';
import { EventStore } from '#platform/event-store';
import { PipelinedTransaction } from '#platform/postgres';
import { createTestSchema, dropTestSchema, uniqueName, type TestSchema } from './integration.test-helpers';

jest.setTimeout(60_000);

describe('PipelinedTransaction (Postgres)', () => {
  let db: TestSchema;
  let t: string;

  beforeAll(async () => {
    // One connection: what a transaction leaves behind on it, the next one meets.
    db = await createTestSchema({ poolMax: 1, extraSql: (s) => [`create table ${s}.items (id text primary key, n integer not null)`] });
    t = `"${db.schema}".items`;
  });
  afterAll(() => dropTestSchema(db));

  const count = async (where: string, params: unknown[]) =>
    Number((await db.query<{ n: string }>(`select count(*) as n from ${t} where ${where}`, params))[0].n);
  /** Server process and transaction state of the pool's one connection, as seen from inside it. */
  const backend = async () => (await db.query<{ pid: number; xact: boolean }>(`select pg_backend_pid() as pid, now() = statement_timestamp() as xact`))[0];

  it('returns each statement its rows, sees earlier statements of the same round trip, and commits all at once', async () => {
    const id = uniqueName('a');
    const rows = await PipelinedTransaction.run(db.em(), async (tx) => {
      const [inserted, seen] = await tx.query([
        { sql: `insert into ${t} (id, n) values (?, ?) returning n`, params: [id, 1] },
        { sql: `select count(*)::int as c from ${t} where id = ?`, params: [id] },
      ]);
      expect(inserted).toEqual([{ n: 1 }]);
      expect(seen).toEqual([{ c: 1 }]);
      return tx.commit([{ sql: `update ${t} set n = n + 1 where id = ? returning n`, params: [id] }]);
    });
    expect(rows).toEqual([[{ n: 2 }]]);
    expect(await count('id = ? and n = 2', [id])).toBe(1);
  });

  it('an error in the last round trip rolls back the first too, and the connection is clean for the next user', async () => {
    const id = uniqueName('b');
    const other = uniqueName('c');
    const before = await backend();
    await expect(
      PipelinedTransaction.run(db.em(), async (tx) => {
        await tx.query([{ sql: `insert into ${t} (id, n) values (?, 1)`, params: [id] }]);
        await tx.commit([
          { sql: `insert into ${t} (id, n) values (?, 2)`, params: [other] },
          { sql: `insert into ${t} (id, n) values (?, 3)`, params: [id] },
        ]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count('id = ?', [id])).toBe(0);
    expect(await count('id = ?', [other])).toBe(0);
    const after = await backend();
    expect(after.pid).toBe(before.pid);
    expect(after.xact).toBe(true);
  });

  it('an error thrown by the caller between round trips rolls back what was sent', async () => {
    const id = uniqueName('d');
    await expect(
      PipelinedTransaction.run(db.em(), async (tx) => {
        await tx.query([{ sql: `insert into ${t} (id, n) values (?, 1)`, params: [id] }]);
        throw new Error('decided against it');
      }),
    ).rejects.toThrow('decided against it');
    expect(await count('id = ?', [id])).toBe(0);
  });

  it('commits what the body sent when it did not commit itself, and sends nothing when it sent nothing', async () => {
    const id = uniqueName('e');
    await PipelinedTransaction.run(db.em(), (tx) => tx.query([{ sql: `insert into ${t} (id, n) values (?, 1)`, params: [id] }]));
    expect(await count('id = ?', [id])).toBe(1);
    await expect(PipelinedTransaction.run(db.em(), async () => 'nothing')).resolves.toBe('nothing');
  });

  it('runs afterCommit hooks once the commit has returned, and never for a transaction that rolled back', async () => {
    const id = uniqueName('f');
    const seen: string[] = [];
    await PipelinedTransaction.run(db.em(), async (tx) => {
      tx.afterCommit(() => seen.push('first'));
      await tx.query([{ sql: `insert into ${t} (id, n) values (?, 1)`, params: [id] }]);
      tx.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
      await tx.commit([]);
      expect(seen).toEqual(['first', 'second']);
      expect(() => tx.afterCommit(() => seen.push('late'))).toThrow('already committed');
    });
    expect(seen).toEqual(['first', 'second']);
    // The body's own commit at the end of run() runs them too.
    await PipelinedTransaction.run(db.em(), async (tx) => {
      tx.afterCommit(() => seen.push('implicit'));
      await tx.query([{ sql: `update ${t} set n = 2 where id = ?`, params: [id] }]);
    });
    expect(seen).toEqual(['first', 'second', 'implicit']);

    await expect(
      PipelinedTransaction.run(db.em(), async (tx) => {
        tx.afterCommit(() => seen.push('rolled back'));
        await tx.query([{ sql: `update ${t} set n = 3 where id = ?`, params: [id] }]);
        throw new Error('decided against it');
      }),
    ).rejects.toThrow('decided against it');
    expect(seen).toEqual(['first', 'second', 'implicit']);
    expect(await count('id = ? and n = 2', [id])).toBe(1);
  });

  it('runs an EventStore append in the same round trip as other statements', async () => {
    const store = new EventStore(db.schema, (event: DomainEvent) => ({ topic: 'pt-test.events', key: event.streamId, aggregateType: 'item' }));
    const stream = uniqueName('item');
    const { stored, statements } = store.appendStatements([
      {
        streamId: stream,
        expectedVersion: 0,
        events: [{ type: 'ItemAdded', data: { n: 1 } }],
        meta: { now: new Date(), appId: null, correlationId: null, causationId: null },
      },
    ]);
    await PipelinedTransaction.run(db.em(), (tx) => tx.commit([...statements, { sql: `insert into ${t} (id, n) values (?, 1)`, params: [stream] }]));
    expect(await db.query(`select event_id, shard is not null as published from "${db.schema}".events where stream_id = ?`, [stream])).toEqual([
      { event_id: stored[0][0].eventId, published: true },
    ]);
    expect(await count('id = ?', [stream])).toBe(1);
  });

  describe('prepared statements', () => {
    /** The statements the pool's one connection holds prepared, as Postgres lists them. */
    const preparedTexts = async () => (await db.query<{ statement: string }>(`select statement from pg_prepared_statements`)).map((row) => row.statement);

    it('prepares a statement on its first run and executes it by name after that, with each run its own values', async () => {
      const [a, b] = [uniqueName('pa'), uniqueName('pb')];
      const insert = (id: string, n: number) => ({ sql: `insert into ${t} (id, n) values (?, ?) returning n * 10 as tenfold`, params: [id, n] });
      expect(await PipelinedTransaction.run(db.em(), (tx) => tx.commit([insert(a, 1)]))).toEqual([[{ tenfold: 10 }]]);
      const held = await preparedTexts();
      expect(held.filter((text) => text.includes(`insert into ${t} (id, n) values ($1, $2)`))).toHaveLength(1);
      expect(await PipelinedTransaction.run(db.em(), (tx) => tx.commit([insert(b, 2)]))).toEqual([[{ tenfold: 20 }]]);
      expect(await preparedTexts()).toEqual(held);
      expect(await count('id in (?, ?)', [a, b])).toBe(2);
    });

    it('after a failed round trip the connection drops its prepared statements and prepares again', async () => {
      const id = uniqueName('pf');
      const insert = { sql: `insert into ${t} (id, n) values (?, 1)`, params: [id] };
      await PipelinedTransaction.run(db.em(), (tx) => tx.commit([insert]));
      expect((await preparedTexts()).filter((text) => text.includes(`insert into ${t} (id, n) values ($1, 1)`))).toHaveLength(1);
      await expect(PipelinedTransaction.run(db.em(), (tx) => tx.commit([insert]))).rejects.toMatchObject({ code: '23505' });
      const rows = await PipelinedTransaction.run(db.em(), (tx) => tx.query([{ sql: `select n from ${t} where id = ?`, params: [id] }]));
      expect(rows).toEqual([[{ n: 1 }]]);
      const held = await preparedTexts();
      expect(held.filter((text) => text.includes(`insert into ${t}`))).toEqual([]);
      expect(held.filter((text) => text.includes(`select n from ${t} where id = $1`))).toHaveLength(1);
    });

    it('runs as plain statements what cannot be one parameter per placeholder (a list)', async () => {
      const [a, b] = [uniqueName('la'), uniqueName('lb')];
      const rows = await PipelinedTransaction.run(db.em(), (tx) =>
        tx.commit([
          { sql: `insert into ${t} (id, n) values (?, 1), (?, 2)`, params: [a, b] },
          { sql: `select id from ${t} where id in (?) order by n`, params: [[a, b]] },
        ]),
      );
      expect(rows[1]).toEqual([{ id: a }, { id: b }]);
    });

    it('a prepared statement reads the table its name means now, after a table was swapped in under that name', async () => {
      const id = uniqueName('sw');
      const read = () =>
        PipelinedTransaction.run(db.em(), (tx) => tx.query([{ sql: `select count(*)::int as c from "${db.schema}".swapped where id = ?`, params: [id] }]));
      await db.query(`create table "${db.schema}".swapped (id text primary key)`);
      expect(await read()).toEqual([[{ c: 0 }]]);
      expect(await read()).toEqual([[{ c: 0 }]]);
      await db.query(`create table "${db.schema}".swapped_next (id text primary key)`);
      await db.query(`insert into "${db.schema}".swapped_next (id) values (?)`, [id]);
      await db.query(`alter table "${db.schema}".swapped rename to swapped_old`);
      await db.query(`alter table "${db.schema}".swapped_next rename to swapped`);
      expect(await read()).toEqual([[{ c: 1 }]]);
    });

    it('execute runs one prepared statement on its own, committed when it returns', async () => {
      const id = uniqueName('ex');
      const insert = { sql: `insert into ${t} (id, n) values (?, ?) returning id`, params: [id, 5] };
      expect(await PipelinedTransaction.execute(db.em(), insert)).toEqual([{ id }]);
      expect((await backend()).xact).toBe(true);
      expect(await count('id = ? and n = 5', [id])).toBe(1);
      expect(await PipelinedTransaction.execute(db.em(), { sql: `update ${t} set n = n + ? where id = ? returning n`, params: [1, id] })).toEqual([{ n: 6 }]);
      expect((await preparedTexts()).filter((text) => text.includes(`update ${t} set n = n + $1 where id = $2`))).toHaveLength(1);
    });
  });
});
