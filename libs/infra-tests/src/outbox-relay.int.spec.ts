/**
 * OutboxRelay tailing the event table against real Postgres and Kafka: what goes out (key, headers,
 * payload, per-key order), that NOTIFY wakes it, that a relay SIGKILLed in the middle of a batch loses
 * nothing, that two relays on one schema never reorder a key (advisory locks per shard) while one
 * publishes the shards the other does not hold, that events committed without a NOTIFY go out because
 * their commit wakes the relay of their process, and that events committing out of position order are
 * all published in stream order (tailing-order cases: event-table-tailing.int.spec.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Kafka, Producer } from 'kafkajs';
import { Client } from 'pg';
import { EVENT_HEADERS, type DomainEvent } from '#platform/contracts';
import { type AppendMeta, EventStore, type NewEvent, outboxChannel, OutboxRelay, relayShardOf, type OutboxRelayOptions } from '#platform/event-store';
import { PipelinedTransaction } from '#platform/postgres';
import {
  BROKERS,
  adminQuery,
  byKey,
  collectTopics,
  connectProducer,
  countUnpublished,
  createTestSchema,
  createTopic,
  deleteTopics,
  dropTestSchema,
  testKafka,
  uniqueName,
  waitFor,
  type Collector,
  type ConsumedMessage,
  type TestSchema,
} from './integration.test-helpers';

// The integration project's `testTimeout` in jest.config.js is not applied by Jest (global-only option).
jest.setTimeout(60_000);

const CHILD = path.join(__dirname, 'testing', 'outbox-relay-child.js');

function meta(correlationId: string | null = null): AppendMeta {
  return { now: new Date(), appId: 'app_relay', correlationId, causationId: null };
}

/**
 * Per key, in (partition, offset) order, versions must go 1, 2, 3... A version at or below the
 * highest seen so far is allowed only as a redelivery of an already seen event (at-least-once);
 * a new version must be exactly the next one (no gap, no reordering).
 */
function assertPerKeyOrder(messages: ConsumedMessage[], expectedVersions: Map<string, number>, options: { allowDuplicates: boolean }): number {
  let duplicates = 0;
  const groups = byKey(messages);
  expect([...groups.keys()].sort()).toEqual([...expectedVersions.keys()].sort());
  for (const [key, list] of groups) {
    expect(new Set(list.map((m) => m.partition)).size).toBe(1); // one key, one partition
    let highest = 0;
    for (const m of list) {
      const event = JSON.parse(m.value!) as DomainEvent;
      if (event.streamVersion <= highest) {
        if (!options.allowDuplicates) throw new Error(`key ${key}: version ${event.streamVersion} after ${highest} (offset ${m.offset})`);
        duplicates++;
        continue;
      }
      if (event.streamVersion !== highest + 1)
        throw new Error(`key ${key}: version ${event.streamVersion} after ${highest} (offset ${m.offset}): out of order`);
      highest = event.streamVersion;
    }
    expect(highest).toBe(expectedVersions.get(key));
  }
  return duplicates;
}

describe('OutboxRelay (Postgres + Kafka)', () => {
  let kafka: Kafka;
  const topics: string[] = [];
  const schemas: TestSchema[] = [];
  const relays: OutboxRelay[] = [];
  const producers: Producer[] = [];
  const collectors: Collector[] = [];
  const children: ChildProcess[] = [];

  async function newTopic(partitions = 6): Promise<string> {
    const topic = await createTopic(kafka, 'es-relay-test', partitions);
    topics.push(topic);
    return topic;
  }
  async function newSchema(): Promise<TestSchema> {
    const db = await createTestSchema({ prefix: 'es_relay' });
    schemas.push(db);
    return db;
  }
  async function newRelay(db: TestSchema, store: EventStore, options: Partial<OutboxRelayOptions> = {}): Promise<OutboxRelay> {
    const producer = await connectProducer(kafka);
    producers.push(producer);
    const relay = new OutboxRelay({
      schema: db.schema,
      databaseUrl: db.url,
      producer,
      route: store.route,
      onError: (error) => process.stderr.write(`relay error: ${String(error)}\n`),
      ...options,
    });
    relays.push(relay);
    return relay;
  }
  async function collect(topicList: string[]): Promise<Collector> {
    const collector = await collectTopics(kafka, topicList);
    collectors.push(collector);
    return collector;
  }

  beforeAll(() => {
    kafka = testKafka();
  });

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(relays.map((r) => r.stop().catch(() => undefined)));
    await Promise.all(producers.map((p) => p.disconnect().catch(() => undefined)));
    await Promise.all(collectors.map((c) => c.stop()));
    await Promise.all(schemas.map((s) => dropTestSchema(s)));
    await deleteTopics(kafka, topics);
  });

  it('publishes every event with key, event headers and the stored event, in order per key, and moves its cursor', async () => {
    const [mainTopic, auditTopic] = await Promise.all([newTopic(), newTopic(2)]);
    const db = await newSchema();
    // Two topics in one batch: `Audited` events go to their own topic, keyed by the same stream.
    const store = new EventStore(db.schema, (e) => ({ topic: e.type === 'Audited' ? auditTopic : mainTopic, key: e.streamId, aggregateType: 'thing' }));

    const streams = Array.from({ length: 5 }, () => uniqueName('thing'));
    const appended: DomainEvent[] = [];
    // Interleave the streams over many transactions so that seq order mixes keys.
    for (let round = 0; round < 6; round++) {
      for (const [i, stream] of streams.entries()) {
        const events: NewEvent[] = [
          { type: 'Changed', data: { round, i } },
          { type: round % 2 === 0 ? 'Audited' : 'Changed', data: { round } },
        ];
        appended.push(...(await db.em().transactional((em) => store.append(em as never, stream, round * 2, events, meta(i === 0 ? `req_${round}` : null)))));
      }
    }
    expect(await countUnpublished(db)).toBe(appended.length);

    const published: number[] = [];
    const relay = await newRelay(db, store, { batchSize: 7, pollIntervalMs: 60000, onPublished: (n) => published.push(n) });
    const collector = await collect([mainTopic, auditTopic]);
    await relay.start();

    await waitFor('every event published', async () => (await countUnpublished(db)) === 0, { detail: () => published });
    expect(await relay.backlog()).toEqual({ count: 0, oldestAgeSeconds: 0 });
    expect(published.reduce((a, b) => a + b, 0)).toBe(appended.length);
    expect(Math.max(...published)).toBeLessThanOrEqual(7);

    await waitFor(`${appended.length} messages on Kafka`, () => collector.messages.length >= appended.length, { detail: () => collector.messages.length });
    expect(collector.messages).toHaveLength(appended.length);
    const byId = new Map(appended.map((e) => [e.eventId, e]));
    for (const m of collector.messages) {
      const event = byId.get(m.headers[EVENT_HEADERS.eventId]);
      expect(event).toBeDefined();
      expect(m.topic).toBe(event!.type === 'Audited' ? auditTopic : mainTopic);
      expect(m.key).toBe(event!.streamId);
      expect(m.headers[EVENT_HEADERS.type]).toBe(event!.type);
      expect(m.headers[EVENT_HEADERS.correlationId]).toBe(event!.correlationId ?? undefined);
      expect(JSON.parse(m.value!)).toEqual(event);
    }
    // Per key and topic, versions in append order with nothing lost or repeated.
    for (const topic of [mainTopic, auditTopic]) {
      const onTopic = collector.messages.filter((m) => m.topic === topic);
      const expected = new Map<string, number[]>();
      for (const e of appended.filter((x) => (x.type === 'Audited') === (topic === auditTopic)))
        expected.set(e.streamId, [...(expected.get(e.streamId) ?? []), e.streamVersion]);
      for (const [key, list] of byKey(onTopic)) expect(list.map((m) => (JSON.parse(m.value!) as DomainEvent).streamVersion)).toEqual(expected.get(key));
    }
  });

  /**
   * One event appended through `appendStatements` in a PipelinedTransaction of its own, as messaging's
   * send batches append; `wakeAfterCommit` tells the store the transaction it commits in.
   */
  async function appendOne(db: TestSchema, store: EventStore, { wakeAfterCommit }: { wakeAfterCommit: boolean }): Promise<DomainEvent> {
    return PipelinedTransaction.run(db.em(), async (tx) => {
      const { stored, statements } = store.appendStatements(
        [{ streamId: uniqueName('appended'), expectedVersion: 0, events: [{ type: 'Poked', data: {} }], meta: meta() }],
        wakeAfterCommit ? { committedBy: tx } : {},
      );
      await tx.commit(statements);
      return stored[0][0];
    });
  }

  /** A started relay whose fallback poll (60 s) never comes within a test, and what it needs. */
  async function relayWithoutPoll() {
    const topic = await newTopic();
    const db = await newSchema();
    const store = new EventStore(db.schema, (e) => ({ topic, key: e.streamId, aggregateType: 'thing' }));
    const relay = await newRelay(db, store, { pollIntervalMs: 60000 });
    const collector = await collect([topic]);
    await relay.start();
    const relayIsIdle = async () => {
      // The last drain has committed and the loop now sleeps on its 60 s timer.
      const rows = await adminQuery<{ state: string; query: string }>('select state, query from pg_stat_activity where application_name = $1', [
        `${db.schema}-outbox-relay`,
      ]);
      return rows.length > 0 && rows.every((r) => r.state === 'idle' && /\bcommit$/.test(r.query.trim()));
    };
    return { db, store, relay, collector, relayIsIdle };
  }

  it('prepares its leases and reads on its connection once and executes them by name in later batches', async () => {
    const topic = await newTopic();
    const db = await newSchema();
    const store = new EventStore(db.schema, (e) => ({ topic, key: e.streamId, aggregateType: 'thing' }));
    // The read round trips the relay's connection sends (they begin its batches), seen on their way to Postgres.
    const reads: string[] = [];
    const application = `${db.schema}-outbox-relay`;
    const query = Client.prototype.query;
    Client.prototype.query = function (this: Client & { connectionParameters?: { application_name?: string } }, ...args: unknown[]) {
      const text = args[0];
      if (this.connectionParameters?.application_name === application && typeof text === 'string' && /\bbegin\b/.test(text)) reads.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const appended: DomainEvent[] = [];
    try {
      // A short poll: a read round trip every few milliseconds, with or without events.
      const relay = await newRelay(db, store, { pollIntervalMs: 10 });
      const collector = await collect([topic]);
      await relay.start();
      for (let i = 0; i < 4; i++) {
        appended.push(await appendOne(db, store, { wakeAfterCommit: false }));
        await waitFor(`${appended.length} published`, () => collector.messages.length >= appended.length, { detail: () => collector.messages.length });
      }
      await waitFor('twenty read round trips', () => reads.length >= 20, { detail: () => reads.length });
    } finally {
      Client.prototype.query = query;
    }
    expect(await countUnpublished(db)).toBe(0);
    const prepares = (text: string) => (text.match(/\bprepare ps_\d+ as /g) ?? []).length;
    const executes = (text: string) => (text.match(/\bexecute ps_\d+\b/g) ?? []).length;
    // The first prepares all three; Postgres plans a statement only when it is prepared (again, on the
    // schedule PreparedStatements keeps), so most round trips are three executes and nothing to plan.
    expect(prepares(reads[0])).toBe(3);
    for (const text of reads) expect([prepares(text), executes(text)]).toEqual(prepares(text) === 0 ? [0, 3] : [3, 3]);
    expect(reads.filter((text) => prepares(text) === 0).length).toBeGreaterThan(reads.length / 2);
  });

  it('is woken by NOTIFY: events go out immediately although the poll is 60 s', async () => {
    const { db, store, collector, relayIsIdle } = await relayWithoutPoll();

    for (let round = 1; round <= 3; round++) {
      await waitFor('the relay to be idle', relayIsIdle);
      const started = Date.now();
      const [event] = await db.em().transactional((em) => store.append(em as never, uniqueName('woken'), 0, [{ type: 'Poked', data: { round } }], meta()));
      await waitFor(`event of round ${round} on Kafka`, () => collector.messages.some((m) => m.headers[EVENT_HEADERS.eventId] === event.eventId), {
        timeoutMs: 10000,
      });
      const elapsed = Date.now() - started;
      expect(elapsed).toBeLessThan(5000);
      await waitFor('its cursor to pass it', async () => (await countUnpublished(db)) === 0);
    }
    expect(collector.messages).toHaveLength(3);
  });

  it('events committed by a transaction the store was told of send no NOTIFY, and the commit wakes the relay of their process', async () => {
    const { db, store, relay, collector, relayIsIdle } = await relayWithoutPoll();
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    try {
      const notifications: string[] = [];
      listener.on('notification', (n) => notifications.push(n.channel));
      await listener.query(`listen "${outboxChannel(db.schema)}"`);
      // A notification committed before a round trip of the listener reaches it before that round trip's answer.
      const notificationsAfterCommit = async () => (await listener.query('select 1'), notifications.length);
      const onKafka = (event: DomainEvent) => collector.messages.some((m) => m.headers[EVENT_HEADERS.eventId] === event.eventId);

      // No relay in this process yet: the store keeps the NOTIFY even when told of the transaction.
      const beforeWiring = await appendOne(db, store, { wakeAfterCommit: true });
      expect(await notificationsAfterCommit()).toBe(1);
      // Not told of the transaction: it notifies as always (so the count below could have been 2).
      const loud = await appendOne(db, store, { wakeAfterCommit: false });
      expect(await notificationsAfterCommit()).toBe(2);
      await waitFor('both events on Kafka', () => [beforeWiring, loud].every(onKafka), { timeoutMs: 10000 });

      store.wakeRelayWith(() => relay.wake());
      await waitFor('every event published', async () => (await countUnpublished(db)) === 0);
      await waitFor('the relay to be idle', relayIsIdle);
      const started = Date.now();
      // Nothing but the commit wakes the relay: no NOTIFY, and its poll is 60 s away.
      const woken = await appendOne(db, store, { wakeAfterCommit: true });
      expect(await notificationsAfterCommit()).toBe(2);
      await waitFor('the woken event on Kafka', () => onKafka(woken), { timeoutMs: 10000 });
      expect(Date.now() - started).toBeLessThan(5000);

      // A transaction that rolls back wakes nobody; its events never existed.
      const wakes = jest.spyOn(relay, 'wake');
      await expect(
        PipelinedTransaction.run(db.em(), async (tx) => {
          const { statements } = store.appendStatements(
            [{ streamId: uniqueName('undone'), expectedVersion: 0, events: [{ type: 'Poked', data: {} }], meta: meta() }],
            { committedBy: tx },
          );
          await tx.query(statements);
          throw new Error('decided against it');
        }),
      ).rejects.toThrow('decided against it');
      expect(wakes).not.toHaveBeenCalled();
      expect(await countUnpublished(db)).toBe(0);
    } finally {
      await listener.end();
    }
  });

  it('woken while another relay holds the lock, it tries again soon instead of at the next poll', async () => {
    const { db, store, relay, collector, relayIsIdle } = await relayWithoutPoll();
    await waitFor('the relay to be idle', relayIsIdle);
    // Another replica's relay, in the middle of a batch: the same lock, held by a session of its own.
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('select pg_advisory_lock(hashtext($1))', [`${db.schema}.outbox-relay`]);
      store.wakeRelayWith(() => relay.wake());
      const [{ now: wokenAt }] = await adminQuery<{ now: Date }>('select now()');
      // Its commit wakes the relay in-process; no NOTIFY would reach another replica's relay.
      const event = await appendOne(db, store, { wakeAfterCommit: true });
      // It read while the lock was held, found nothing it could take, and committed the empty read.
      const readUnderLock = async () =>
        (
          await adminQuery('select 1 from pg_stat_activity where application_name = $1 and state = $2 and query_start > $3 and query ~ $4', [
            `${db.schema}-outbox-relay`,
            'idle',
            wokenAt,
            'commit$',
          ])
        ).length > 0;
      await waitFor('the relay to have read under the held lock', readUnderLock);
      expect(await countUnpublished(db)).toBe(1);
      await other.query('select pg_advisory_unlock(hashtext($1))', [`${db.schema}.outbox-relay`]);
      const released = Date.now();
      await waitFor('the event on Kafka once the lock is free', () => collector.messages.some((m) => m.headers[EVENT_HEADERS.eventId] === event.eventId), {
        timeoutMs: 10000,
      });
      expect(Date.now() - released).toBeLessThan(5000);
    } finally {
      await other.end();
    }
  });

  it('publishes the shards no other relay holds while another relay is in the middle of a batch on the rest', async () => {
    const { db, store, collector, relayIsIdle } = await relayWithoutPoll();
    await waitFor('the relay to be idle', relayIsIdle);
    const streams = Array.from({ length: 40 }, () => uniqueName('sharded'));
    const shardOf = new Map<string, number>();
    for (const stream of streams) shardOf.set(stream, relayShardOf(stream));
    const held = [...new Set(shardOf.values())].slice(0, 3);
    expect(held.length).toBe(3);
    const inHeldShards = streams.filter((s) => held.includes(shardOf.get(s)!));
    const free = streams.filter((s) => !held.includes(shardOf.get(s)!));
    expect(free.length).toBeGreaterThan(0);
    // Another replica's relay between its read and its commit, holding three shards as a relay does.
    const other = new Client({ connectionString: db.url });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('select pg_advisory_xact_lock_shared(hashtext($1))', [`${db.schema}.outbox-relay`]);
      for (const shard of held) await other.query('select pg_advisory_xact_lock(hashtext($1), $2)', [`${db.schema}.outbox-relay.tail`, shard]);

      const versions = new Map<string, number>();
      for (let round = 0; round < 3; round++)
        for (const stream of streams) {
          await db.em().transactional((em) => store.append(em as never, stream, round, [{ type: 'Step', data: { round } }], meta()));
          versions.set(stream, round + 1);
        }
      const onKafka = (list: string[]) => collector.messages.filter((m) => list.includes(m.key!)).length;
      await waitFor('every event of the free shards on Kafka', () => onKafka(free) === free.length * 3, { detail: () => onKafka(free) });
      // The held shards wait for their holder, however often this relay is woken.
      expect(await countUnpublished(db)).toBe(inHeldShards.length * 3);
      expect(onKafka(inHeldShards)).toBe(0);

      await other.query('commit');
      await waitFor('the held shards published once released', () => collector.messages.length === streams.length * 3, {
        timeoutMs: 10000,
        detail: () => collector.messages.length,
      });
      assertPerKeyOrder(collector.messages, versions, { allowDuplicates: false });
      await waitFor('every event published', async () => (await countUnpublished(db)) === 0);
    } finally {
      await other.end();
    }
  });

  it('loses nothing when the relay process is SIGKILLed mid-batch; a second relay drains the rest', async () => {
    const topic = await newTopic();
    const db = await newSchema();
    const store = new EventStore(db.schema, (e) => ({ topic, key: e.streamId, aggregateType: 'thing' }));

    // 20 000 events: 200 streams x 100 events, in one transaction.
    const streams = Array.from({ length: 200 }, (_, i) => `crash-${i}`);
    const eventIds = new Set<string>();
    await db.em().transactional(async (em) => {
      for (const stream of streams) {
        const events = Array.from({ length: 100 }, (_, v) => ({ type: 'Counted', data: { v } }));
        for (const e of await store.append(em as never, stream, 0, events, meta())) eventIds.add(e.eventId);
      }
    });
    const total = eventIds.size;
    expect(total).toBe(20000);
    expect(await countUnpublished(db)).toBe(total);

    const childLog: string[] = [];
    let childPublished = 0;
    let stalled: { batch: number; eventIds: string[] } | null = null;
    const child = fork(CHILD, [], {
      execPath: process.execPath,
      execArgv: ['--conditions=platform-source'],
      env: {
        ...process.env,
        RELAY_SCHEMA: db.schema,
        RELAY_TOPIC: topic,
        RELAY_DATABASE_URL: db.url,
        KAFKA_BROKERS: BROKERS.join(','),
        RELAY_BATCH_SIZE: '200',
        RELAY_STALL_AT_BATCH: '6',
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    children.push(child);
    child.stdout!.on('data', (chunk) => childLog.push(String(chunk)));
    child.stderr!.on('data', (chunk) => childLog.push(String(chunk)));
    child.on('message', (message: { type: string; total?: number; batch?: number; eventIds?: string[] }) => {
      if (message.type === 'published') childPublished = message.total!;
      if (message.type === 'stalled') stalled = { batch: message.batch!, eventIds: message.eventIds! };
    });
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));

    // 5 batches committed their cursor moves and the 6th batch is on Kafka but not yet committed.
    const remainingAtKill = await waitFor(
      'the child relay to commit some batches and stall inside the next one',
      async () => {
        if (child.exitCode !== null) throw new Error(`child exited early: ${childLog.join('')}`);
        // The stall is noted before counting: a count already under way when the stall is reported
        // may have been read before the 5th batch's cursor move committed.
        const hasStalled = stalled !== null;
        const remaining = await countUnpublished(db);
        return remaining < total && hasStalled ? remaining : false;
      },
      { timeoutMs: 30000, intervalMs: 10, detail: () => ({ childPublished, stalled: stalled?.batch, log: childLog.join('').slice(-2000) }) },
    );
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const inFlight = stalled!.eventIds;
    expect(childPublished).toBe(1000);
    expect(remainingAtKill).toBe(total - 1000);
    expect(inFlight).toHaveLength(200);
    // The killed batch never got to move its cursor: all its events are still unpublished.
    expect(await countUnpublished(db)).toBe(total - 1000);
    expect(await countUnpublished(db, "e.event_id = any(string_to_array(?, ',')::uuid[])", [inFlight.join(',')])).toBe(200);

    // A fresh relay takes over; it may first find the lock still held until Postgres ends the dead session.
    const relay = await newRelay(db, store, { batchSize: 500, pollIntervalMs: 200 });
    await relay.start();
    await waitFor('the second relay to publish the rest', async () => (await countUnpublished(db)) === 0, {
      timeoutMs: 30000,
      detail: () => relay.backlog(),
    });

    const collector = await collect([topic]);
    const seen = new Map<string, number>();
    let scanned = 0;
    const scan = () => {
      for (; scanned < collector.messages.length; scanned++) {
        const id = collector.messages[scanned].headers[EVENT_HEADERS.eventId];
        seen.set(id, (seen.get(id) ?? 0) + 1);
      }
    };
    await waitFor(
      `all ${total} event ids on Kafka`,
      () => {
        scan();
        return seen.size >= total && collector.messages.length >= total + inFlight.length;
      },
      { timeoutMs: 30000, detail: () => ({ distinct: seen.size, messages: collector.messages.length }) },
    );
    for (const id of eventIds) expect(seen.has(id)).toBe(true);
    expect(seen.size).toBe(total);
    // Exactly the killed batch went out twice (at-least-once), everything else once.
    const twice = [...seen.entries()].filter(([, n]) => n > 1).map(([id]) => id);
    expect(twice.sort()).toEqual([...inFlight].sort());
    expect(Math.max(...seen.values())).toBe(2);
    // Keys stay in order across the crash; the only repeats are the re-sent killed batch.
    const duplicates = assertPerKeyOrder(collector.messages, new Map(streams.map((s) => [s, 100])), { allowDuplicates: true });
    expect(duplicates).toBe(inFlight.length);
  });

  it('two relays over one schema never publish a key out of order', async () => {
    const topic = await newTopic();
    const db = await newSchema();
    const store = new EventStore(db.schema, (e) => ({ topic, key: e.streamId, aggregateType: 'thing' }));
    const counts = [0, 0];
    // Small batches and a short poll: the two relays contend for the lock all the time.
    const relayA = await newRelay(db, store, { batchSize: 5, pollIntervalMs: 20, onPublished: (n) => (counts[0] += n) });
    const relayB = await newRelay(db, store, { batchSize: 5, pollIntervalMs: 20, onPublished: (n) => (counts[1] += n) });
    const collector = await collect([topic]);
    await Promise.all([relayA.start(), relayB.start()]);

    // 20 streams written concurrently while both relays run.
    const streams = Array.from({ length: 20 }, () => uniqueName('pair'));
    const versions = new Map<string, number>();
    await Promise.all(
      streams.map(async (stream, s) => {
        let version = 0;
        for (let i = 0; i < 15; i++) {
          const n = 1 + ((s + i) % 3);
          const events = Array.from({ length: n }, (_, k) => ({ type: 'Step', data: { i, k } }));
          await db.em().transactional((em) => store.append(em as never, stream, version, events, meta()));
          version += n;
        }
        versions.set(stream, version);
      }),
    );
    const total = [...versions.values()].reduce((a, b) => a + b, 0);

    await waitFor('every event published', async () => (await countUnpublished(db)) === 0, { timeoutMs: 20000, detail: () => counts });
    await waitFor(`${total} messages on Kafka`, () => collector.messages.length >= total, { timeoutMs: 20000, detail: () => collector.messages.length });
    expect(counts[0] + counts[1]).toBe(total);
    // Both really took part (otherwise the test would prove nothing about the lock).
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBeGreaterThan(0);
    expect(collector.messages).toHaveLength(total);
    assertPerKeyOrder(collector.messages, versions, { allowDuplicates: false });
  });
});
