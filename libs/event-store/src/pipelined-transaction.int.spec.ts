/**
 * PipelinedTransaction against a real Postgres service schema: several statements to a round trip
 * with begin and commit riding along, all or nothing on an error in any round trip, appendStatements
 * running inside it, and the pooled connection clean for its next user.
 */
import type { DomainEvent } from '@platform/contracts';
import { EventStore } from './event-store';
import { createTestSchema, dropTestSchema, uniqueName, type TestSchema } from './integration.test-helpers';
import { PipelinedTransaction } from './pipelined-transaction';

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

  const count = async (where: string, params: unknown[]) => Number((await db.query<{ n: string }>(`select count(*) as n from ${t} where ${where}`, params))[0].n);
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

  it('runs an EventStore append (events and outbox rows) in the same round trip as other statements', async () => {
    const store = new EventStore(db.schema, (event: DomainEvent) => ({ topic: 'pt-test.events', key: event.streamId, aggregateType: 'item' }));
    const stream = uniqueName('item');
    const { stored, statements } = store.appendStatements([
      { streamId: stream, expectedVersion: 0, events: [{ type: 'ItemAdded', data: { n: 1 } }], meta: { now: new Date(), appId: null, correlationId: null, causationId: null } },
    ]);
    await PipelinedTransaction.run(db.em(), (tx) => tx.commit([...statements, { sql: `insert into ${t} (id, n) values (?, 1)`, params: [stream] }]));
    expect(await db.query(`select event_id from "${db.schema}".events where stream_id = ?`, [stream])).toEqual([{ event_id: stored[0][0].eventId }]);
    expect(await db.query(`select id from "${db.schema}".outbox where aggregate_id = ?`, [stream])).toEqual([{ id: stored[0][0].eventId }]);
    expect(await count('id = ?', [stream])).toBe(1);
  });
});
