/**
 * EventStore and handleCommand against a real Postgres service schema (role `svc_<schema>`):
 * envelope round trip, optimistic concurrency under real contention, retry-on-conflict, the outbox
 * written atomically with the events, and schema isolation between service roles.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import type { DomainEvent } from '#platform/contracts';
import { type AppendMeta, EventStore, handleCommand, type NewEvent, type OutboxRoute, relayShardOf, StreamVersionConflict } from '#platform/event-store';
import type { Decider } from '#platform/decider';
import { countRows, countUnpublished, createTestSchema, dropTestSchema, uniqueName, type TestSchema } from './integration.test-helpers';

// The integration project's `testTimeout` in jest.config.js is not applied by Jest (global-only option).
jest.setTimeout(60_000);

const TOPIC = 'es-test.events';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Routes every event to TOPIC keyed by stream, except `Private*` events, which stay in the service. */
const route = (event: DomainEvent): OutboxRoute | null =>
  event.type.startsWith('Private') ? null : { topic: TOPIC, key: event.streamId, aggregateType: 'counter' };

type CounterEvent = { type: 'CounterIncremented'; data: { by: number; n: number } };
interface CounterState {
  count: number;
  total: number;
}
/** `n` is decided from the state, so a retry that did not reload state would write a duplicate n. */
const counter: Decider<CounterState, { by: number }, CounterEvent> = {
  initialState: () => ({ count: 0, total: 0 }),
  decide: (command, state) => [{ type: 'CounterIncremented', data: { by: command.by, n: state.count + 1 } }],
  evolve: (state, event) => ({ count: state.count + 1, total: state.total + event.data.by }),
};

function meta(overrides: Partial<AppendMeta> = {}): AppendMeta {
  return { now: new Date(), appId: null, correlationId: null, causationId: null, ...overrides };
}

describe('EventStore (Postgres)', () => {
  let db: TestSchema;
  let store: EventStore;

  beforeAll(async () => {
    db = await createTestSchema({
      poolMax: 24,
      extraSql: (s) => [`create table ${s}.counters (stream_id text primary key, count integer not null, total integer not null)`],
    });
    store = new EventStore(db.schema, route);
  });

  afterAll(async () => {
    await dropTestSchema(db);
  });

  it('appends and reads back the full envelope with consecutive versions', async () => {
    const stream = uniqueName('roundtrip');
    const now = new Date('2026-11-22T10:11:12.345Z');
    const m = meta({ now, appId: 'app_1', correlationId: 'req_1', causationId: 'evt_0' });

    const first = await db.em().transactional((em) =>
      store.append(
        em as never,
        stream,
        0,
        [
          { type: 'Opened', data: { name: 'x', nested: { list: [1, 2, 3], flag: true } } },
          { type: 'Renamed', data: { name: 'y' } },
        ],
        m,
      ),
    );
    expect(first.map((e) => e.streamVersion)).toEqual([1, 2]);
    for (const e of first) {
      expect(e).toMatchObject({
        schemaVersion: 1,
        occurredAt: now.toISOString(),
        appId: 'app_1',
        correlationId: 'req_1',
        causationId: 'evt_0',
        streamId: stream,
      });
      expect(e.eventId).toMatch(UUID_V7);
    }
    expect(new Set(first.map((e) => e.eventId)).size).toBe(2);

    const second = await db.em().transactional((em) => store.append(em as never, stream, 2, [{ type: 'Closed', data: {} }], meta({ now })));
    expect(second[0]).toMatchObject({ streamVersion: 3, appId: null, correlationId: null, causationId: null });
    const third = await db.em().transactional((em) => store.append(em as never, stream, 'any', [{ type: 'Reopened', data: { why: 'any' } }], meta({ now })));
    expect(third[0].streamVersion).toBe(4);

    const read = await store.readStream(db.em(), stream);
    expect(read.version).toBe(4);
    expect(read.events).toEqual([...first, ...second, ...third]);

    // Appending at a version that is already taken is a conflict, not a silent overwrite.
    await expect(db.em().transactional((em) => store.append(em as never, stream, 2, [{ type: 'Late', data: {} }], meta()))).rejects.toBeInstanceOf(
      StreamVersionConflict,
    );
    expect((await store.readStream(db.em(), stream)).version).toBe(4);

    expect(await store.readStream(db.em(), uniqueName('missing'))).toEqual({ events: [], version: 0 });
    expect(await store.append(db.em(), stream, 4, [], meta())).toEqual([]);
  });

  it('folds a stream with the decider (aggregate)', async () => {
    const stream = uniqueName('fold');
    await db.em().transactional((em) =>
      store.append(
        em as never,
        stream,
        0,
        [
          { type: 'CounterIncremented', data: { by: 2, n: 1 } },
          { type: 'CounterIncremented', data: { by: 5, n: 2 } },
        ],
        meta(),
      ),
    );
    expect(await store.aggregate(db.em(), stream, counter)).toEqual({ state: { count: 2, total: 7 }, version: 2 });
  });

  it('lets exactly one of 20 concurrent appends at the same expected version win', async () => {
    const stream = uniqueName('race');
    await db.em().transactional((em) => store.append(em as never, stream, 0, [{ type: 'Opened', data: {} }], meta()));

    // Each contender holds its own connection and transaction; all start together.
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => db.em().transactional((em) => store.append(em as never, stream, 1, [{ type: 'Claimed', data: { by: i } }], meta()))),
    );

    const winners = results.filter((r): r is PromiseFulfilledResult<DomainEvent[]> => r.status === 'fulfilled');
    const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(19);
    for (const loser of losers) {
      expect(loser.reason).toBeInstanceOf(StreamVersionConflict);
      expect(loser.reason).toMatchObject({ streamId: stream, expectedVersion: 1 });
    }
    const read = await store.readStream(db.em(), stream);
    expect(read.version).toBe(2);
    expect(read.events[1]).toEqual(winners[0].value[0]);
    // The losers left nothing to publish behind either.
    expect(await countUnpublished(db, 'e.stream_id = ?', [stream])).toBe(2);
  });

  it('handleCommand applies all of 20 concurrent commands, retrying on conflict, with versions 1..20 and no gaps', async () => {
    const stream = uniqueName('counter');
    let attempts = 0;
    const decider: typeof counter = { ...counter, decide: (command, state) => (attempts++, counter.decide(command, state)) };

    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        handleCommand({
          em: db.em(),
          eventStore: store,
          decider,
          streamId: stream,
          command: { by: i + 1 },
          meta: meta(),
          // Every conflict means another command committed a version, so 19 retries always suffice.
          maxRetries: 19,
          project: async (em, events, state) => {
            await em.execute(
              `insert into "${db.schema}".counters (stream_id, count, total) values (?, ?, ?) on conflict (stream_id) do update set count = excluded.count, total = excluded.total`,
              [events[0].streamId, state.count, state.total],
            );
          },
        }),
      ),
    );

    expect(results.map((r) => r.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const read = await store.readStream(db.em(), stream);
    expect(read.version).toBe(20);
    expect(read.events.map((e) => e.streamVersion)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Each retry decided on fresh state: n follows the version, and every command's `by` is there once.
    expect(read.events.map((e) => (e.data as CounterEvent['data']).n)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(read.events.map((e) => (e.data as CounterEvent['data']).by).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(attempts).toBeGreaterThan(20); // there was real contention
    // The inline projection committed with the winning appends only.
    const [projection] = await db.query(`select count, total from "${db.schema}".counters where stream_id = ?`, [stream]);
    expect(projection).toEqual({ count: 20, total: 210 });
  });

  it('handleCommand retries only conflicts, and gives up after maxRetries', async () => {
    const stream = uniqueName('giveup');
    // A store whose load is always stale: a competitor commits right after every aggregate() read.
    class RacedStore extends EventStore {
      loads = 0;
      override async aggregate<S, C, E extends NewEvent>(em: EntityManager, streamId: string, decider: Decider<S, C, E>) {
        const loaded = await super.aggregate(em, streamId, decider);
        this.loads++;
        await db.em().transactional((other) => store.append(other as never, streamId, 'any', [{ type: 'CounterIncremented', data: { by: 0, n: 0 } }], meta()));
        return loaded;
      }
    }
    const raced = new RacedStore(db.schema, route);
    const run = (decider: typeof counter) =>
      handleCommand({ em: db.em(), eventStore: raced, decider, streamId: stream, command: { by: 1 }, meta: meta(), maxRetries: 2 });

    await expect(run(counter)).rejects.toBeInstanceOf(StreamVersionConflict);
    expect(raced.loads).toBe(3); // first attempt + 2 retries
    expect((await store.readStream(db.em(), stream)).version).toBe(3); // only the competitors' events

    raced.loads = 0;
    const refusing: typeof counter = {
      ...counter,
      decide: () => {
        throw new Error('refused by the decider');
      },
    };
    await expect(run(refusing)).rejects.toThrow('refused by the decider');
    expect(raced.loads).toBe(1); // other errors are not retried
  });

  it('writes each event once, with the shard of its key when published and its trace, and nothing in the outbox', async () => {
    const committed = uniqueName('outbox_ok');
    const events = await db.em().transactional((em) =>
      store.append(
        em as never,
        committed,
        0,
        [
          { type: 'CounterIncremented', data: { by: 1, n: 1 } },
          { type: 'PrivateNote', data: { note: 'stays in the service' } },
          { type: 'CounterIncremented', data: { by: 2, n: 2 } },
        ],
        meta({ correlationId: 'req_outbox' }),
      ),
    );
    const rows = await db.query<{ event_id: string; shard: number | null; published: boolean }>(
      `select event_id, shard, tx_id is not null as published from "${db.schema}".events where stream_id = ? order by stream_version`,
      [committed],
    );
    // Private events are stored but have no shard: the relay never reads them.
    expect(rows).toEqual([
      { event_id: events[0].eventId, shard: relayShardOf(committed), published: true },
      { event_id: events[1].eventId, shard: null, published: true },
      { event_id: events[2].eventId, shard: relayShardOf(committed), published: true },
    ]);
    expect(await countUnpublished(db, 'e.stream_id = ?', [committed])).toBe(2);
    expect(await countRows(db, 'outbox')).toBe(0);

    const rolledBack = uniqueName('outbox_rollback');
    let appended: DomainEvent[] = [];
    await expect(
      db.em().transactional(async (em) => {
        appended = await store.append(em as never, rolledBack, 0, [{ type: 'CounterIncremented', data: { by: 1, n: 1 } }], meta());
        throw new Error('abort after append');
      }),
    ).rejects.toThrow('abort after append');
    expect(appended).toHaveLength(1);
    // Gone with the rollback: nothing to publish.
    expect(await countUnpublished(db, 'e.stream_id = ?', [rolledBack])).toBe(0);
    expect(await store.readStream(db.em(), rolledBack)).toEqual({ events: [], version: 0 });
  });
});

describe('service schema isolation', () => {
  let a: TestSchema;
  let b: TestSchema;

  beforeAll(async () => {
    [a, b] = await Promise.all([createTestSchema({ prefix: 'es_iso_a' }), createTestSchema({ prefix: 'es_iso_b' })]);
  });

  afterAll(async () => {
    await Promise.all([dropTestSchema(a), dropTestSchema(b)]);
  });

  it("denies a service role any access to another service's schema", async () => {
    const client = new Client({ connectionString: a.url });
    await client.connect();
    try {
      expect((await client.query('select current_user as u')).rows[0].u).toBe(a.role);
      // Its own schema is fine (and first on its search_path).
      await expect(client.query('select count(*) from events')).resolves.toBeDefined();
      await expect(client.query(`select * from "${b.schema}".events`)).rejects.toThrow(/permission denied for schema/);
      await expect(client.query(`select * from "${b.schema}".outbox`)).rejects.toThrow(/permission denied for schema/);
      await expect(client.query(`insert into "${b.schema}".inbox (consumer, event_id) values ('x', 'y')`)).rejects.toThrow(/permission denied for schema/);
      await expect(client.query(`create table "${b.schema}".intruder (id int)`)).rejects.toThrow(/permission denied for schema/);
    } finally {
      await client.end();
    }
  });
});
