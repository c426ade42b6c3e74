/**
 * InboxConsumer (libs/kafka) over a real topic and a real service schema: duplicates on the topic
 * and a replay from offset 0 apply nothing twice; a backlog is applied a batch per transaction, in
 * offset order; invalid payloads and failing handlers go to dead_letters without blocking the
 * messages behind them. Every case runs twice: with handlers per event type, and with a pipelined
 * effect (reads with `begin`, writes with the commit) that has the same effects and also shares
 * transactions across partitions handled at once.
 */
import { randomUUID } from 'node:crypto';
import type { Kafka, Producer } from 'kafkajs';
import { EVENT_HEADERS, kafkaNamespace, uuidv7, type DomainEvent } from '#platform/contracts';
import { InboxConsumer, type EventHandler, type InboxConsumerOptions, type PipelinedEffect } from '#platform/kafka';
import { pgTextArray } from '#platform/event-store';
import { type Statement } from '#platform/postgres';
import { TestClock } from '#platform/clock';
import { inboxRetentionJob } from '#platform/service-kit';
import { Counter, Registry } from 'prom-client';
import {
  connectProducer,
  countRows,
  createTestSchema,
  createTopic,
  deleteTopics,
  dropTestSchema,
  testKafka,
  uniqueName,
  waitFor,
  type TestSchema,
} from './integration.test-helpers';

// The integration project's `testTimeout` in jest.config.js is not applied by Jest (global-only option).
jest.setTimeout(60_000);

const APPLIED = 'TestCounterIncremented';
const EXPLODING = 'TestExploding';
const TX_RECORDING = 'TestTransactionRecorded';

function makeEvent(streamId: string, streamVersion: number, data: unknown = { by: 1 }, type = APPLIED): DomainEvent {
  return {
    eventId: uuidv7(Date.now()),
    type,
    schemaVersion: 1,
    occurredAt: new Date().toISOString(),
    appId: null,
    correlationId: null,
    causationId: null,
    streamId,
    streamVersion,
    data,
  };
}

function message(event: DomainEvent, partition?: number, extraHeaders: Record<string, string> = {}) {
  return {
    key: event.streamId,
    value: JSON.stringify(event),
    headers: { [EVENT_HEADERS.eventId]: event.eventId, [EVENT_HEADERS.type]: event.type, ...extraHeaders },
    ...(partition === undefined ? {} : { partition }),
  };
}

const DAY_MS = 24 * 3600 * 1000;

/** Exploding events whose cause was fixed (a deploy): their handler applies them from then on. */
const fixedIds = new Set<string>();

interface BatchSeen {
  partition: number;
  firstOffset: number;
}

/** The real Kafka client, with every consumer it creates reporting the batches it processes. */
function observedKafka(kafka: Kafka, batches: BatchSeen[]): Kafka {
  const observed = Object.create(kafka) as Kafka;
  observed.consumer = (config) => {
    const consumer = kafka.consumer(config);
    consumer.on(consumer.events.START_BATCH_PROCESS, (e) => batches.push({ partition: e.payload.partition, firstOffset: Number(e.payload.firstOffset) }));
    return consumer;
  };
  return observed;
}

describe.each(['handlers', 'pipelined'] as const)('InboxConsumer with %s (Postgres + Kafka)', (mode) => {
  let db: TestSchema;
  let kafka: Kafka;
  let producer: Producer;
  const topics: string[] = [];
  const consumers: InboxConsumer[] = [];

  const effects = (): Promise<{ event_id: string; n: number }[]> =>
    db.query(`select event_id, count(*)::int as n from "${db.schema}".effects group by event_id`);
  const appliedIds = async (): Promise<Set<string>> => new Set((await effects()).map((r) => r.event_id));

  const handlers: Record<string, EventHandler> = {
    [APPLIED]: async (em, event) => {
      await em.execute(`insert into "${db.schema}".effects (event_id, stream_id, stream_version) values (?, ?, ?)`, [
        event.eventId,
        event.streamId,
        event.streamVersion,
      ]);
    },
    [EXPLODING]: async (em, event) => {
      // The effect is written, then the handler fails: the transaction must take it back.
      await em.execute(`insert into "${db.schema}".effects (event_id, stream_id, stream_version) values (?, ?, ?)`, [
        event.eventId,
        event.streamId,
        event.streamVersion,
      ]);
      if (!fixedIds.has(event.eventId)) throw new Error(`handler refused ${event.eventId}`);
    },
    [TX_RECORDING]: async (em, event) => {
      await em.execute(`insert into "${db.schema}".tx_seen (event_id, stream_version, txid) values (?, ?, txid_current())`, [
        event.eventId,
        event.streamVersion,
      ]);
    },
  };

  // The handlers' effects, a slice at a time. The read checks exactly-once from the other side: an
  // event the inbox has not seen has no effect yet.
  const pipelined: PipelinedEffect = {
    types: [APPLIED, EXPLODING, TX_RECORDING],
    read: (events) => [
      { sql: `select event_id from "${db.schema}".effects where event_id = any(?::text[])`, params: [pgTextArray(events.map((e) => e.eventId))] },
    ],
    decide: ([withEffects]) => {
      const applied = new Set(withEffects.map((row) => row.event_id as string));
      // The plain effects of the slice are gathered and written by `finish`, in one statement.
      const gathered: { event_id: string; stream_id: string; stream_version: number }[] = [];
      const decideOne = (event: DomainEvent): Statement[] => {
        if (applied.has(event.eventId)) throw new Error(`${event.eventId} is new to the inbox but already has an effect`);
        const effect = {
          sql: `insert into "${db.schema}".effects (event_id, stream_id, stream_version) values (?, ?, ?)`,
          params: [event.eventId, event.streamId, event.streamVersion],
        };
        if (event.type === APPLIED) {
          gathered.push({ event_id: event.eventId, stream_id: event.streamId, stream_version: event.streamVersion });
          return [];
        }
        // The effect is written, then a later statement of the commit fails: the transaction must take it back.
        if (event.type === EXPLODING && !fixedIds.has(event.eventId))
          return [effect, { sql: `select cast(? as integer)`, params: [`handler refused ${event.eventId}`] }];
        if (event.type === EXPLODING) return [effect];
        return [
          {
            sql: `insert into "${db.schema}".tx_seen (event_id, stream_version, txid) values (?, ?, txid_current())`,
            params: [event.eventId, event.streamVersion],
          },
        ];
      };
      const finish = (): Statement[] =>
        gathered.length === 0
          ? []
          : [
              {
                sql: `insert into "${db.schema}".effects (event_id, stream_id, stream_version)
                      select e.event_id, e.stream_id, e.stream_version from jsonb_to_recordset(?::jsonb) as e(event_id text, stream_id text, stream_version int)`,
                params: [JSON.stringify(gathered)],
              },
            ];
      return Object.assign(decideOne, { finish });
    },
  };

  async function startConsumer(options: Partial<InboxConsumerOptions> & Pick<InboxConsumerOptions, 'consumerName' | 'topics'>): Promise<InboxConsumer> {
    const consumer = new InboxConsumer({
      kafka,
      orm: db.orm,
      schema: db.schema,
      ...(mode === 'handlers' ? { handlers } : { pipelined }),
      fromBeginning: true,
      ...options,
    });
    consumers.push(consumer);
    await consumer.start();
    return consumer;
  }

  /** One fresh event per partition, sent to that partition; once all are applied, everything before them was seen. */
  async function sendSentinels(topic: string, partitions: number, tag: string): Promise<string[]> {
    const events = Array.from({ length: partitions }, (_, p) => makeEvent(`sentinel-${tag}-${p}`, 1));
    await producer.send({ topic, acks: -1, messages: events.map((e, p) => message(e, p)) });
    return events.map((e) => e.eventId);
  }

  async function waitApplied(ids: string[], what: string): Promise<void> {
    await waitFor(
      what,
      async () => {
        const applied = await appliedIds();
        return ids.every((id) => applied.has(id));
      },
      { timeoutMs: 30000, detail: async () => ({ applied: (await appliedIds()).size, wanted: ids.length }) },
    );
  }

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestSchema({
      prefix: 'es_inbox',
      // No unique constraint on purpose: a second application would show up as a second row.
      extraSql: (s) => [
        `create table ${s}.effects (id bigserial primary key, event_id text not null, stream_id text not null, stream_version integer not null)`,
        `create table ${s}.tx_seen (id bigserial primary key, event_id text not null, stream_version integer not null, txid bigint not null)`,
      ],
    });
    producer = await connectProducer(kafka);
  });

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await producer?.disconnect().catch(() => undefined);
    await dropTestSchema(db);
    await deleteTopics(kafka, topics);
  });

  it('applies each event once although every message is on the topic twice, and again nothing after a replay from offset 0', async () => {
    const partitions = 3;
    const topic = await createTopic(kafka, 'es-inbox-test', partitions);
    topics.push(topic);
    const consumerName = uniqueName('es-inbox-dedupe');

    const events = Array.from({ length: 6 }, (_, s) => `stream-${s}-${randomUUID()}`).flatMap((stream) =>
      Array.from({ length: 5 }, (_, v) => makeEvent(stream, v + 1)),
    );
    // Every message twice: back to back in one send, and the whole list once more in a second send.
    await producer.send({ topic, acks: -1, messages: events.flatMap((e) => [message(e), message(e)]) });
    await producer.send({ topic, acks: -1, messages: events.map((e) => message(e)) });
    const firstSentinels = await sendSentinels(topic, partitions, 'first');

    const applied: DomainEvent[] = [];
    const first = await startConsumer({ consumerName, topics: [topic], onApplied: (e) => applied.push(e) });
    await waitApplied([...events.map((e) => e.eventId), ...firstSentinels], 'every event and sentinel to be applied');

    const counts = await effects();
    expect(counts).toHaveLength(events.length + partitions);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(events.length + partitions);
    expect(applied.map((e) => e.eventId).sort()).toEqual([...events.map((e) => e.eventId), ...firstSentinels].sort());
    expect(await countRows(db, 'dead_letters')).toBe(0);

    // Restart: same consumer name (= group, namespaced), offsets reset to the beginning of every partition.
    await first.stop();
    const admin = kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        'the group to accept an offset reset',
        async () => {
          // The group id carries the stack's Kafka namespace (KAFKA_NAMESPACE) in front of the consumer name.
          await admin.resetOffsets({ groupId: kafkaNamespace() + consumerName, topic, earliest: true });
          return true;
        },
        { timeoutMs: 20000, intervalMs: 500 },
      );
    } finally {
      await admin.disconnect();
    }

    const replayBatches: BatchSeen[] = [];
    const appliedAfterReplay: DomainEvent[] = [];
    const secondSentinels = await sendSentinels(topic, partitions, 'second');
    await startConsumer({ consumerName, topics: [topic], kafka: observedKafka(kafka, replayBatches), onApplied: (e) => appliedAfterReplay.push(e) });
    await waitApplied(secondSentinels, 'the post-replay sentinels to be applied');

    // It really re-read every partition from offset 0...
    for (let p = 0; p < partitions; p++) expect(replayBatches.some((b) => b.partition === p && b.firstOffset === 0)).toBe(true);
    // ...and applied only what is new.
    expect(appliedAfterReplay.map((e) => e.eventId).sort()).toEqual([...secondSentinels].sort());
    const after = await effects();
    expect(after).toHaveLength(events.length + 2 * partitions);
    expect(after.every((r) => r.n === 1)).toBe(true);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(events.length + 2 * partitions);
  });

  it('keeps its inbox to a window: pruned past it, a replay from offset 0 and redriven old copies still apply nothing twice', async () => {
    const partitions = 2;
    const topic = await createTopic(kafka, 'es-inbox-window', partitions);
    topics.push(topic);
    const consumerName = uniqueName('es-inbox-window');
    const events = Array.from({ length: 4 }, (_, s) => `stream-${s}-${randomUUID()}`).flatMap((stream) =>
      Array.from({ length: 3 }, (_, v) => makeEvent(stream, v + 1)),
    );
    await producer.send({ topic, acks: -1, messages: events.map((e) => message(e)) });
    const firstSentinels = await sendSentinels(topic, partitions, 'first');
    const first = await startConsumer({ consumerName, topics: [topic] });
    await waitApplied([...events.map((e) => e.eventId), ...firstSentinels], 'every event and sentinel to be applied');
    await first.stop();
    expect(await countRows(db, 'consumer_offsets', 'consumer = ?', [consumerName])).toBe(partitions);

    // Eight days on, the pruner forgets every id (older than the 7-day window) and keeps a newer one.
    const clock = new TestClock();
    clock.setOffset(8 * DAY_MS);
    await db.query(`insert into "${db.schema}".inbox (consumer, event_id, processed_at) values (?, 'recent', now() + interval '7 days')`, [consumerName]);
    const pruned = new Counter({ name: 'rows_pruned_total', help: 'test', labelNames: ['table'], registers: [new Registry()] });
    await inboxRetentionJob({ schema: db.schema, em: () => db.orm.em.fork() as never, clock, pruned }).run();
    expect(await db.query(`select event_id from "${db.schema}".inbox where consumer = ?`, [consumerName])).toEqual([{ event_id: 'recent' }]);
    expect((await pruned.get()).values.find((v) => v.labels.table === `${db.schema}.inbox`)?.value).toBeGreaterThanOrEqual(events.length + partitions);

    // A replay from offset 0 (a fresh group under the same consumer name), 8 days on, with redriven copies on the topic:
    // of applied events (older than the window: passed over) and of one never applied (within the window: applied).
    const neverApplied = { ...makeEvent(`redriven-${randomUUID()}`, 1), occurredAt: new Date(Date.now() + 8 * DAY_MS).toISOString() };
    const redriven = { [EVENT_HEADERS.redrivenAt]: new Date().toISOString() };
    await producer.send({ topic, acks: -1, messages: [...events.slice(0, 3), neverApplied].map((e) => message(e, undefined, redriven)) });
    const secondSentinels = await sendSentinels(topic, partitions, 'second');
    const appliedAfterReplay: string[] = [];
    const stale: string[] = [];
    await startConsumer({
      consumerName,
      topics: [topic],
      groupId: `${kafkaNamespace()}${consumerName}.replay`,
      now: () => clock.nowMs(),
      onApplied: (e) => appliedAfterReplay.push(e.eventId),
      onStaleRedrive: (e) => stale.push(e.eventId),
    });
    await waitApplied([neverApplied.eventId, ...secondSentinels], 'the new events after the replay');
    expect(appliedAfterReplay.sort()).toEqual([neverApplied.eventId, ...secondSentinels].sort());
    expect(stale.sort()).toEqual(
      events
        .slice(0, 3)
        .map((e) => e.eventId)
        .sort(),
    );
    const ours = new Set([...events.map((e) => e.eventId), ...firstSentinels, ...secondSentinels, neverApplied.eventId]);
    const after = (await effects()).filter((r) => ours.has(r.event_id));
    expect(after).toHaveLength(ours.size);
    expect(after.every((r) => r.n === 1)).toBe(true);
  });

  it('applies a backlog a batch per transaction, in offset order, each event once', async () => {
    const topic = await createTopic(kafka, 'es-inbox-batch', 1);
    topics.push(topic);
    const consumerName = uniqueName('es-inbox-batch');
    const stream = `batch-${randomUUID()}`;
    const events = Array.from({ length: 250 }, (_, v) => makeEvent(stream, v + 1, {}, TX_RECORDING));
    await producer.send({ topic, acks: -1, messages: events.map((e) => message(e)) });

    const applied: string[] = [];
    await startConsumer({ consumerName, topics: [topic], onApplied: (e) => applied.push(e.eventId) });
    await waitFor('the backlog to be applied', async () => applied.length === events.length, {
      timeoutMs: 30000,
      detail: async () => ({ applied: applied.length }),
    });

    const rows = await db.query<{ stream_version: number; txid: string }>(`select stream_version, txid from "${db.schema}".tx_seen order by id`);
    expect(rows.map((r) => r.stream_version)).toEqual(events.map((_, v) => v + 1));
    expect(applied).toEqual(events.map((e) => e.eventId));
    // At most 100 events per transaction: 250 need at least 3; one per event would be 250.
    const transactions = new Set(rows.map((r) => r.txid));
    expect(transactions.size).toBeGreaterThanOrEqual(3);
    expect(transactions.size).toBeLessThan(50);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(events.length);
  });

  it('partitions handled at once keep their own order; a pipelined effect applies their slices in shared transactions', async () => {
    const partitions = 6;
    const topic = await createTopic(kafka, 'es-inbox-partitions', partitions);
    topics.push(topic);
    const consumerName = uniqueName('es-inbox-partitions');
    // A backlog of ten events on every partition, one stream each: one fetch hands all six partitions over at once.
    const streams = Array.from({ length: partitions }, (_, p) => ({
      partition: p,
      events: Array.from({ length: 10 }, (_, v) => makeEvent(`part-${p}-${randomUUID()}`, v + 1, {}, TX_RECORDING)),
    }));
    await producer.send({ topic, acks: -1, messages: streams.flatMap(({ partition, events }) => events.map((e) => message(e, partition))) });

    const applied: string[] = [];
    await startConsumer({ consumerName, topics: [topic], partitionsConcurrently: partitions, onApplied: (e) => applied.push(e.eventId) });
    await waitFor('every partition to be applied', async () => applied.length === partitions * 10, {
      timeoutMs: 30000,
      detail: async () => ({ applied: applied.length }),
    });

    const streamOf = new Map(streams.flatMap(({ partition, events }) => events.map((e) => [e.eventId, partition] as const)));
    const rows = (
      await db.query<{ event_id: string; stream_version: number; txid: string }>(
        `select event_id, stream_version, txid from "${db.schema}".tx_seen order by id`,
      )
    ).filter((r) => streamOf.has(r.event_id));
    for (let p = 0; p < partitions; p++)
      expect(rows.filter((r) => streamOf.get(r.event_id) === p).map((r) => r.stream_version)).toEqual(Array.from({ length: 10 }, (_, v) => v + 1));
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(partitions * 10);
    const partitionsPerTransaction = [...new Set(rows.map((r) => r.txid))].map(
      (txid) => new Set(rows.filter((r) => r.txid === txid).map((r) => streamOf.get(r.event_id))).size,
    );
    if (mode === 'handlers') expect(Math.max(...partitionsPerTransaction)).toBe(1);
    else expect(Math.max(...partitionsPerTransaction)).toBeGreaterThan(1);
  });

  it('dead-letters invalid payloads and failing events without blocking the messages behind them', async () => {
    // One partition: everything below is processed strictly in this order.
    const topic = await createTopic(kafka, 'es-inbox-bad', 1);
    topics.push(topic);
    const consumerName = uniqueName('es-inbox-dlq');
    const stream = `bad-${randomUUID()}`;

    const before = makeEvent(stream, 1);
    const noVersion = { ...makeEvent(stream, 2) } as Partial<DomainEvent>;
    delete noVersion.streamVersion;
    const unknownType = makeEvent(stream, 3, {}, 'SomethingNobodyHandles');
    const exploding = makeEvent(stream, 4, {}, EXPLODING);
    const after = [makeEvent(stream, 5), makeEvent(stream, 6)];

    await producer.send({
      topic,
      acks: -1,
      messages: [
        message(before), // offset 0
        { key: stream, value: 'this is {not JSON' }, // 1
        { key: stream, value: JSON.stringify(noVersion) }, // 2
        message(unknownType), // 3: no handler, skipped silently
        message(exploding), // 4: handler keeps failing
        ...after.map((e) => message(e)), // 5, 6
      ],
    });

    const errors: Record<string, unknown>[] = [];
    const live = await startConsumer({ consumerName, topics: [topic], maxAttempts: 2, onError: (_error, context) => errors.push(context) });
    await waitApplied([before.eventId, ...after.map((e) => e.eventId)], 'the valid events around the bad ones to be applied');

    const letters = await db.query<{
      consumer: string;
      topic: string;
      partition: number;
      offset: string;
      event_id: string | null;
      payload: string;
      error: string;
    }>(`select consumer, topic, partition, "offset", event_id, payload, error from "${db.schema}".dead_letters where consumer = ? order by id`, [consumerName]);
    expect(letters).toHaveLength(3);
    expect(letters[0]).toEqual({
      consumer: consumerName,
      topic,
      partition: 0,
      offset: '1',
      event_id: null,
      payload: 'this is {not JSON',
      error: 'payload is not JSON',
    });
    expect(letters[1]).toEqual({
      consumer: consumerName,
      topic,
      partition: 0,
      offset: '2',
      event_id: noVersion.eventId,
      payload: JSON.stringify(noVersion),
      error: 'invalid event: envelope field streamVersion missing',
    });
    expect(letters[2]).toMatchObject({
      consumer: consumerName,
      topic,
      partition: 0,
      offset: '4',
      event_id: exploding.eventId,
      payload: JSON.stringify(exploding),
    });
    expect(letters[2].error).toContain(`handler refused ${exploding.eventId}`);

    // The failing handler's effect and inbox row were rolled back with it (so it can be redriven).
    const ids = await appliedIds();
    expect(ids.has(exploding.eventId)).toBe(false);
    expect(ids.has(unknownType.eventId)).toBe(false);
    expect(await countRows(db, 'inbox', 'consumer = ? and event_id = ?', [consumerName, exploding.eventId])).toBe(0);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(3);
    // Two attempts for the exploding event, then the dead letter.
    expect(errors.filter((c) => c.eventId === exploding.eventId && typeof c.attempt === 'number').map((c) => c.attempt)).toEqual([1, 2]);

    // The cause fixed, a replay from offset 0 applies the dead-lettered event (and its letter goes), nothing else again.
    await live.stop();
    fixedIds.add(exploding.eventId);
    const sentinel = makeEvent(stream, 7);
    await producer.send({ topic, acks: -1, messages: [message(sentinel)] });
    const replayed: string[] = [];
    await startConsumer({ consumerName, topics: [topic], groupId: `${kafkaNamespace()}${consumerName}.replay`, onApplied: (e) => replayed.push(e.eventId) });
    await waitApplied([exploding.eventId, sentinel.eventId], 'the fixed event and the sentinel after the replay');
    await waitFor('the replay to report both', async () => replayed.length >= 2);
    expect(replayed).toEqual([exploding.eventId, sentinel.eventId]);
    const counts = (await effects()).filter((r) => [before, exploding, ...after, sentinel].some((e) => e.eventId === r.event_id));
    expect(counts.map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
    expect(await db.query(`select "offset" from "${db.schema}".dead_letters where consumer = ? order by id`, [consumerName])).toEqual([
      { offset: '1' },
      { offset: '2' },
    ]);
  });
});

/**
 * A pipelined effect that is its own inbox (`dedupedByEffect`): its effect row, keyed by the event
 * id, gates its other writes, so the consumer writes no inbox rows and still applies each event once,
 * skips by applied offset what it read before, dead-letters and retries as any consumer, and passes
 * over redriven copies older than the window before the effect sees them.
 */
describe('InboxConsumer with a pipelined effect deduped by itself (Postgres + Kafka)', () => {
  let db: TestSchema;
  let kafka: Kafka;
  let producer: Producer;
  const topics: string[] = [];
  const consumers: InboxConsumer[] = [];

  /** The effect's other writes: one row per event the gate let through (no unique key, so a second would show). */
  const gated = (): Promise<{ event_id: string; n: number }[]> => db.query(`select event_id, count(*)::int as n from "${db.schema}".gated group by event_id`);

  const effect: PipelinedEffect = {
    types: [APPLIED, EXPLODING],
    dedupedByEffect: true,
    read: () => [],
    decide: () => (event) => {
      const gate: Statement = {
        sql: `with kept as (insert into "${db.schema}".kept (event_id) values (?) on conflict (event_id) do nothing returning event_id)
              insert into "${db.schema}".gated (event_id) select event_id from kept`,
        params: [event.eventId],
      };
      // The effect is written, then a later statement of the commit fails: the transaction must take it back.
      if (event.type === EXPLODING && !fixedIds.has(event.eventId)) return [gate, { sql: `select cast(? as integer)`, params: [`refused ${event.eventId}`] }];
      return [gate];
    },
  };

  async function startConsumer(options: Partial<InboxConsumerOptions> & Pick<InboxConsumerOptions, 'consumerName' | 'topics'>): Promise<InboxConsumer> {
    const consumer = new InboxConsumer({ kafka, orm: db.orm, schema: db.schema, pipelined: effect, fromBeginning: true, ...options });
    consumers.push(consumer);
    await consumer.start();
    return consumer;
  }

  async function waitGated(ids: string[], what: string): Promise<void> {
    await waitFor(
      what,
      async () => {
        const seen = new Set((await gated()).map((r) => r.event_id));
        return ids.every((id) => seen.has(id));
      },
      { timeoutMs: 30000, detail: async () => ({ gated: (await gated()).length, wanted: ids.length }) },
    );
  }

  async function sendSentinels(topic: string, partitions: number, tag: string): Promise<string[]> {
    const events = Array.from({ length: partitions }, (_, p) => makeEvent(`sentinel-${tag}-${p}`, 1));
    await producer.send({ topic, acks: -1, messages: events.map((e, p) => message(e, p)) });
    return events.map((e) => e.eventId);
  }

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestSchema({
      prefix: 'es_own_inbox',
      extraSql: (s) => [`create table ${s}.kept (event_id text primary key)`, `create table ${s}.gated (id bigserial primary key, event_id text not null)`],
    });
    producer = await connectProducer(kafka);
  });

  afterAll(async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await producer?.disconnect().catch(() => undefined);
    await dropTestSchema(db);
    await deleteTopics(kafka, topics);
  });

  it('writes no inbox row, applies copies once through its own key, and skips a replay from offset 0 by applied offset', async () => {
    const partitions = 2;
    const topic = await createTopic(kafka, 'es-own-inbox', partitions);
    topics.push(topic);
    const consumerName = uniqueName('es-own-inbox');
    const events = Array.from({ length: 4 }, (_, s) => `stream-${s}-${randomUUID()}`).flatMap((stream) =>
      Array.from({ length: 3 }, (_, v) => makeEvent(stream, v + 1)),
    );
    // Every message twice back to back, the list again, and recent redriven copies (within the window: the effect's key passes them over).
    const redriven = { [EVENT_HEADERS.redrivenAt]: new Date().toISOString() };
    await producer.send({ topic, acks: -1, messages: events.flatMap((e) => [message(e), message(e)]) });
    await producer.send({ topic, acks: -1, messages: [...events.map((e) => message(e)), ...events.slice(0, 3).map((e) => message(e, undefined, redriven))] });
    const firstSentinels = await sendSentinels(topic, partitions, 'first');
    const first = await startConsumer({ consumerName, topics: [topic] });
    await waitGated([...events.map((e) => e.eventId), ...firstSentinels], 'every event and sentinel to be applied');

    const counts = await gated();
    expect(counts).toHaveLength(events.length + partitions);
    expect(counts.every((r) => r.n === 1)).toBe(true);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(0);
    expect(await countRows(db, 'consumer_offsets', 'consumer = ?', [consumerName])).toBe(partitions);
    expect(await countRows(db, 'dead_letters')).toBe(0);

    // The group reset to offset 0: every message is at or below the applied offset, so none reaches the effect.
    await first.stop();
    const admin = kafka.admin();
    await admin.connect();
    try {
      await waitFor(
        'the group to accept an offset reset',
        async () => {
          await admin.resetOffsets({ groupId: kafkaNamespace() + consumerName, topic, earliest: true });
          return true;
        },
        { timeoutMs: 20000, intervalMs: 500 },
      );
    } finally {
      await admin.disconnect();
    }
    const replayBatches: BatchSeen[] = [];
    const appliedAfterReplay: string[] = [];
    const secondSentinels = await sendSentinels(topic, partitions, 'second');
    await startConsumer({ consumerName, topics: [topic], kafka: observedKafka(kafka, replayBatches), onApplied: (e) => appliedAfterReplay.push(e.eventId) });
    await waitGated(secondSentinels, 'the post-replay sentinels to be applied');
    for (let p = 0; p < partitions; p++) expect(replayBatches.some((b) => b.partition === p && b.firstOffset === 0)).toBe(true);
    expect(appliedAfterReplay.sort()).toEqual([...secondSentinels].sort());
    expect((await gated()).every((r) => r.n === 1)).toBe(true);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(0);
  });

  it('dead-letters and retries as any consumer, and passes over a redriven copy older than the window whose key was pruned', async () => {
    const topic = await createTopic(kafka, 'es-own-inbox-bad', 1);
    topics.push(topic);
    const consumerName = uniqueName('es-own-inbox-dlq');
    const stream = `bad-${randomUUID()}`;
    const before = makeEvent(stream, 1);
    const exploding = makeEvent(stream, 2, {}, EXPLODING);
    const after = makeEvent(stream, 3);
    await producer.send({ topic, acks: -1, messages: [before, exploding, after].map((e) => message(e)) });
    const live = await startConsumer({ consumerName, topics: [topic], maxAttempts: 2 });
    await waitGated([before.eventId, after.eventId], 'the events around the failing one to be applied');
    expect(await db.query(`select "offset", event_id from "${db.schema}".dead_letters where consumer = ?`, [consumerName])).toEqual([
      { offset: '1', event_id: exploding.eventId },
    ]);
    expect((await gated()).some((r) => r.event_id === exploding.eventId)).toBe(false);

    // The cause fixed, a replay from offset 0 applies the dead-lettered event (its letter goes) and nothing else again.
    // Eight days on, a redriven copy of an applied event whose key was pruned is passed over before the effect.
    await live.stop();
    fixedIds.add(exploding.eventId);
    await db.query(`delete from "${db.schema}".kept where event_id = ?`, [before.eventId]);
    const clock = new TestClock();
    clock.setOffset(8 * DAY_MS);
    const sentinel = { ...makeEvent(stream, 4), occurredAt: new Date(Date.now() + 8 * DAY_MS).toISOString() };
    await producer.send({
      topic,
      acks: -1,
      messages: [message(before, undefined, { [EVENT_HEADERS.redrivenAt]: new Date().toISOString() }), message(sentinel)],
    });
    const replayed: string[] = [];
    const stale: string[] = [];
    await startConsumer({
      consumerName,
      topics: [topic],
      groupId: `${kafkaNamespace()}${consumerName}.replay`,
      now: () => clock.nowMs(),
      onApplied: (e) => replayed.push(e.eventId),
      onStaleRedrive: (e) => stale.push(e.eventId),
    });
    await waitGated([exploding.eventId, sentinel.eventId], 'the fixed event and the sentinel after the replay');
    expect(replayed).toEqual([exploding.eventId, sentinel.eventId]);
    expect(stale).toEqual([before.eventId]);
    const counts = (await gated()).filter((r) => [before, exploding, after, sentinel].some((e) => e.eventId === r.event_id));
    expect(counts.map((r) => r.n)).toEqual([1, 1, 1, 1]);
    expect(await countRows(db, 'dead_letters', 'consumer = ?', [consumerName])).toBe(0);
    expect(await countRows(db, 'inbox', 'consumer = ?', [consumerName])).toBe(0);
  });
});
