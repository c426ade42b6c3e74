/**
 * The relay tails the event table safely (docs/adr/0213-the-event-table-is-the-outbox.md), against real
 * Postgres and Kafka: an event whose transaction commits after a later position's is not passed over;
 * a stream's later version written by a transaction that began earlier still goes out after its
 * predecessor; and a schema migrated from the outbox-row design publishes its pending outbox rows,
 * before the new events of their keys, and none of its history again.
 */
import type { Kafka, Producer } from 'kafkajs';
import { Client } from 'pg';
import { EVENT_HEADERS, type DomainEvent } from '#platform/contracts';
import { type AppendMeta, EventStore, eventTableOutboxSql, OutboxRelay, type OutboxRelayOptions, outboxRowFor, type StreamAppend } from '#platform/event-store';
import { queryStatement } from '#platform/postgres';
import {
  adminQuery,
  byKey,
  collectTopics,
  connectProducer,
  countRows,
  countUnpublished,
  createTestSchema,
  createTopic,
  deleteTopics,
  dropTestSchema,
  testKafka,
  uniqueName,
  waitFor,
  type Collector,
  type TestSchema,
} from './integration.test-helpers';

jest.setTimeout(60_000);

function meta(): AppendMeta {
  return { now: new Date(), appId: 'app_tail', correlationId: null, causationId: null };
}

/** A session of the service role, for transactions held open across the test's steps. */
async function session(db: TestSchema): Promise<Client> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  return client;
}

/** Runs the store's append statements on a raw session. */
async function appendOn(client: Client, store: EventStore, appends: StreamAppend[]): Promise<DomainEvent[]> {
  const { stored, statements } = store.appendStatements(appends);
  for (const statement of statements) await queryStatement(client, statement);
  return stored.flat();
}

describe('tailing the event table (Postgres + Kafka)', () => {
  let kafka: Kafka;
  const topics: string[] = [];
  const schemas: TestSchema[] = [];
  const relays: OutboxRelay[] = [];
  const producers: Producer[] = [];
  const collectors: Collector[] = [];
  const sessions: Client[] = [];

  beforeAll(() => {
    kafka = testKafka();
  });
  // A transaction left open by a failed test would hold back every relay of the database cluster.
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.end().catch(() => undefined)));
  });
  afterAll(async () => {
    await Promise.all(relays.map((r) => r.stop().catch(() => undefined)));
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
    await Promise.all(collectors.map((c) => c.stop()));
    await Promise.all(schemas.map((s) => dropTestSchema(s)));
    await deleteTopics(kafka, topics);
  });

  async function setUp(options: { eventTableOutbox?: boolean } = {}) {
    const topic = await createTopic(kafka, 'es-tail-test', 3);
    topics.push(topic);
    const db = await createTestSchema({ prefix: 'es_tail', ...options });
    schemas.push(db);
    const store = new EventStore(db.schema, (e) => ({ topic, key: e.streamId, aggregateType: 'thing' }));
    const collector = await collectTopics(kafka, [topic]);
    collectors.push(collector);
    const open = async () => {
      const client = await session(db);
      sessions.push(client);
      return client;
    };
    const startRelay = async (options: Partial<OutboxRelayOptions> = {}) => {
      const producer = await connectProducer(kafka);
      producers.push(producer);
      const relay = new OutboxRelay({
        schema: db.schema,
        databaseUrl: db.url,
        producer,
        route: store.route,
        pollIntervalMs: 50,
        onError: (error) => process.stderr.write(`relay error: ${String(error)}\n`),
        ...options,
      });
      relays.push(relay);
      await relay.start();
      return relay;
    };
    /** Resolves once the relay has committed a read that began after `since`. */
    const readSince = async (since: Date) =>
      waitFor('a relay read after that commit', async () => {
        const rows = await adminQuery('select 1 from pg_stat_activity where application_name = $1 and state = $2 and query_start > $3 and query ~ $4', [
          `${db.schema}-outbox-relay`,
          'idle',
          since,
          'commit$',
        ]);
        return rows.length > 0;
      });
    const published = (key: string) => (byKey(collector.messages).get(key) ?? []).map((m) => (JSON.parse(m.value!) as DomainEvent).streamVersion);
    return { db, topic, store, collector, open, startRelay, readSince, published };
  }

  it('does not pass over an event whose transaction commits after a later position was committed', async () => {
    const { db, store, collector, open, startRelay, readSince, published } = await setUp();
    await startRelay();
    const [early, late] = [uniqueName('early'), uniqueName('late')];
    const slow = await open();
    const fast = await open();

    // `slow` takes the lower position and keeps its transaction open; `fast` appends after it and commits.
    await slow.query('begin');
    const [slowEvent] = await appendOn(slow, store, [{ streamId: early, expectedVersion: 0, events: [{ type: 'Slow', data: {} }], meta: meta() }]);
    await fast.query('begin');
    const [fastEvent] = await appendOn(fast, store, [{ streamId: late, expectedVersion: 0, events: [{ type: 'Fast', data: {} }], meta: meta() }]);
    await fast.query('commit');

    // A relay that tailed positions would publish `late` now and move past the slow event's position.
    const [{ now }] = await adminQuery<{ now: Date }>('select clock_timestamp() as now');
    await readSince(now);
    expect(published(late)).toEqual([]);
    expect(await countUnpublished(db)).toBe(1);

    await slow.query('commit');
    const [{ ordered }] = await adminQuery<{ ordered: boolean }>(
      `select (select position from "${db.schema}".events where event_id = $1) < (select position from "${db.schema}".events where event_id = $2) as ordered`,
      [slowEvent.eventId, fastEvent.eventId],
    );
    expect(ordered).toBe(true);
    await waitFor('both events on Kafka', () => published(early).length === 1 && published(late).length === 1, { detail: () => collector.messages.length });
    await waitFor('nothing left to publish', async () => (await countUnpublished(db)) === 0);
    expect(collector.messages.map((m) => m.headers[EVENT_HEADERS.eventId]).sort()).toEqual([slowEvent.eventId, fastEvent.eventId].sort());
  });

  it("publishes a stream's versions in order when a transaction that began earlier appends the later version", async () => {
    const { db, store, open, startRelay, published } = await setUp();
    const stream = uniqueName('stream');
    const earlier = await open();
    const later = await open();

    // `earlier` gets its transaction id first (by writing elsewhere), then appends version 2 once
    // `later` committed version 1: by (transaction id, position), version 2 comes first.
    await earlier.query('begin');
    await appendOn(earlier, store, [{ streamId: uniqueName('elsewhere'), expectedVersion: 0, events: [{ type: 'First', data: {} }], meta: meta() }]);
    await later.query('begin');
    await appendOn(later, store, [{ streamId: stream, expectedVersion: 0, events: [{ type: 'V1', data: {} }], meta: meta() }]);
    await later.query('commit');
    await appendOn(earlier, store, [{ streamId: stream, expectedVersion: 1, events: [{ type: 'V2', data: {} }], meta: meta() }]);
    await earlier.query('commit');
    const [{ inverted }] = await adminQuery<{ inverted: boolean }>(
      `select (select tx_id from "${db.schema}".events where stream_id = $1 and stream_version = 2) < (select tx_id from "${db.schema}".events where stream_id = $1 and stream_version = 1) as inverted`,
      [stream],
    );
    expect(inverted).toBe(true);

    // One event per batch: the batch that reads version 2 must send version 1 before it.
    await startRelay({ batchSize: 1 });
    await waitFor('nothing left to publish', async () => (await countUnpublished(db)) === 0, {
      detail: async () => [
        await adminQuery(
          `select stream_id, stream_version, tx_id::text, shard, position, pg_snapshot_xmin(pg_current_snapshot())::text as h from "${db.schema}".events`,
        ),
        await adminQuery(`select tx_ids::text, positions::text from "${db.schema}".relay_cursor`),
      ],
    });
    await waitFor('both versions on Kafka', () => new Set(published(stream)).size === 2);
    const versions = published(stream);
    // Version 1 may go out again after version 2 (at-least-once); never version 2 before version 1.
    expect(versions.slice(0, 2)).toEqual([1, 2]);
    expect(versions.slice(2).every((v) => v === 1)).toBe(true);
  });

  it('publishes the outbox rows pending at migration, before the new events of their keys, and no history', async () => {
    const { db, topic, store, collector, startRelay, published } = await setUp({ eventTableOutbox: false });
    const [stream, other] = [uniqueName('migrated'), uniqueName('other')];
    const s = `"${db.schema}"`;
    // As the previous release wrote them: events and outbox rows; the relay had published (and
    // deleted the rows of) version 1 of each stream, versions 2 and 3 of `stream` still wait.
    const history: DomainEvent[] = [];
    for (const [id, count] of [
      [stream, 3],
      [other, 1],
    ] as const) {
      for (let v = 1; v <= count; v++) {
        const event: DomainEvent = {
          eventId: crypto.randomUUID(),
          type: 'Old',
          schemaVersion: 1,
          occurredAt: new Date().toISOString(),
          appId: 'app_tail',
          correlationId: null,
          causationId: null,
          streamId: id,
          streamVersion: v,
          data: { v },
        };
        history.push(event);
        await db.query(
          `insert into ${s}.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at) values (?, ?, ?, ?, ?::jsonb, '{}'::jsonb, ?)`,
          [id, v, event.eventId, event.type, JSON.stringify(event.data), event.occurredAt],
        );
        if (v > 1)
          await db.query(
            `insert into ${s}.outbox (id, aggregate_type, aggregate_id, type, topic, payload, headers) values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb)`,
            [...outboxRowFor(event, { topic, key: id, aggregateType: 'thing' }, {})],
          );
      }
    }
    expect(await countRows(db, 'outbox')).toBe(2);

    // The migration, then a new event of the same stream written the new way, before any relay runs.
    for (const sql of eventTableOutboxSql(db.schema)) await db.query(sql);
    const [fresh] = await db.em().transactional((em) => store.append(em as never, stream, 3, [{ type: 'New', data: {} }], meta()));
    expect(await countUnpublished(db)).toBe(1);

    await startRelay();
    await waitFor('the pending rows and the new event on Kafka', () => published(stream).length >= 3, { detail: () => published(stream) });
    await waitFor('the outbox empty and nothing left to publish', async () => (await countRows(db, 'outbox')) === 0 && (await countUnpublished(db)) === 0);
    expect(published(stream)).toEqual([2, 3, 4]);
    expect(published(other)).toEqual([]);
    expect(collector.messages.map((m) => m.headers[EVENT_HEADERS.eventId])).toEqual([
      ...history.filter((e) => e.streamId === stream && e.streamVersion > 1).map((e) => e.eventId),
      fresh.eventId,
    ]);
  });
});
