/**
 * ConsumerLagPoller (libs/kafka) against a real broker and a real InboxConsumer (here, beside the
 * InboxConsumer tests, for their throwaway schemas and topics): the lag it reports comes from the
 * group's committed offsets and the partitions' watermarks, so it is there for an idle consumer,
 * grows while a consumer is stuck in a batch, and falls once the consumer commits, with no batch
 * callback involved. The consumers here have no `onLag`: every value seen is the poller's.
 */
import type { Kafka, Producer } from 'kafkajs';
import { uuidv7, type DomainEvent } from '#platform/contracts';
import { ConsumerLagPoller, InboxConsumer, type EventHandler, type LagSource, type PartitionLag } from '#platform/kafka';
import {
  connectProducer,
  createTestSchema,
  createTopic,
  deleteTopics,
  dropTestSchema,
  testKafka,
  uniqueName,
  waitFor,
  type TestSchema,
} from './integration.test-helpers';

jest.setTimeout(60_000);

const APPLIED = 'TestLagApplied';
const GATED = 'TestLagGated';

function makeEvent(type: string): DomainEvent {
  const streamId = `lag-${uniqueName('s')}`;
  return {
    eventId: uuidv7(Date.now()),
    type,
    schemaVersion: 1,
    occurredAt: new Date().toISOString(),
    appId: null,
    correlationId: null,
    causationId: null,
    streamId,
    streamVersion: 1,
    data: {},
  };
}

describe('ConsumerLagPoller (Kafka)', () => {
  let db: TestSchema;
  let kafka: Kafka;
  let producer: Producer;
  const topics: string[] = [];
  const consumers: InboxConsumer[] = [];
  const pollers: ConsumerLagPoller[] = [];

  /** A poller every 100 ms whose latest report per consumer label is in `seen`. */
  function startPoller(sources: LagSource[]): { seen: Map<string, PartitionLag[]>; errors: unknown[] } {
    const seen = new Map<string, PartitionLag[]>();
    const errors: unknown[] = [];
    const poller = new ConsumerLagPoller({ kafka, onLags: (consumer, lags) => seen.set(consumer, lags), onError: (error) => errors.push(error) });
    for (const source of sources) poller.track(source);
    poller.start(100);
    pollers.push(poller);
    return { seen, errors };
  }

  async function startConsumer(topic: string, consumerName: string, handlers: Record<string, EventHandler>): Promise<InboxConsumer> {
    const consumer = new InboxConsumer({ kafka, orm: db.orm, schema: db.schema, consumerName, topics: [topic], handlers, fromBeginning: true });
    consumers.push(consumer);
    await consumer.start();
    return consumer;
  }

  const lagOf = (lags: PartitionLag[] | undefined, partition: number) => lags?.find((l) => l.partition === partition)?.lag;

  beforeAll(async () => {
    kafka = testKafka();
    db = await createTestSchema({ prefix: 'es_lag' });
    producer = await connectProducer(kafka);
  });

  afterAll(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
    await Promise.all(consumers.map((c) => c.stop()));
    await producer?.disconnect().catch(() => undefined);
    await dropTestSchema(db);
    await deleteTopics(kafka, topics);
  });

  it('reports 0 for an idle consumer, the backlog while it is stuck in a batch, and 0 again once it committed', async () => {
    const topic = await createTopic(kafka, 'es-lag-stuck', 2);
    topics.push(topic);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let gatedStarted = false;
    const consumerName = uniqueName('es-lag-stuck');
    const consumer = await startConsumer(topic, consumerName, {
      [APPLIED]: async () => undefined,
      [GATED]: async () => {
        gatedStarted = true;
        await gate;
      },
    });
    const { seen, errors } = startPoller([consumer]);

    // No message was ever sent, so no batch ever arrived: the series exist all the same, at 0.
    const idle = await waitFor('both partitions reported at 0', () => {
      const lags = seen.get(consumerName);
      return lags?.length === 2 && lags.every((l) => l.lag === 0) ? lags : null;
    });
    expect(idle).toEqual([
      { topic, partition: 0, lag: 0 },
      { topic, partition: 1, lag: 0 },
    ]);

    await producer.send({ topic, acks: -1, messages: [{ key: 'g', value: JSON.stringify(makeEvent(GATED)), partition: 0 }] });
    await waitFor('the consumer to be stuck in the gated handler', () => gatedStarted);
    await producer.send({
      topic,
      acks: -1,
      messages: Array.from({ length: 4 }, () => ({ key: 'a', value: JSON.stringify(makeEvent(APPLIED)), partition: 0 })),
    });
    // The batch under way never finishes, yet the lag shows everything behind the last commit.
    await waitFor('partition 0 to show 5 messages of lag', () => lagOf(seen.get(consumerName), 0) === 5, { detail: () => seen.get(consumerName) });
    expect(lagOf(seen.get(consumerName), 1)).toBe(0);

    release();
    await waitFor('partition 0 back at 0 once the consumer committed', () => lagOf(seen.get(consumerName), 0) === 0, { detail: () => seen.get(consumerName) });
    expect(errors).toEqual([]);

    // A stopped consumer holds no partitions: its series go rather than stay at their last value.
    await consumer.stop();
    await waitFor('no partitions reported after the stop', () => seen.get(consumerName)?.length === 0);
  });

  it('reports only the partitions assigned to each member, so two replicas never report the same partition', async () => {
    const topic = await createTopic(kafka, 'es-lag-split', 2);
    topics.push(topic);
    const consumerName = uniqueName('es-lag-split');
    const handlers = { [APPLIED]: async () => undefined };
    const first = await startConsumer(topic, consumerName, handlers);
    const second = await startConsumer(topic, consumerName, handlers);
    const as = (label: string, c: InboxConsumer): LagSource => ({ consumerName: label, groupId: c.groupId, assignment: () => c.assignment() });
    const { seen } = startPoller([as('first', first), as('second', second)]);
    await producer.send({ topic, acks: -1, messages: [0, 1].map((partition) => ({ key: 'a', value: JSON.stringify(makeEvent(APPLIED)), partition })) });

    const split = await waitFor(
      'one partition each, both caught up',
      () => {
        const a = seen.get('first') ?? [];
        const b = seen.get('second') ?? [];
        const ok = a.length === 1 && b.length === 1 && a[0].partition !== b[0].partition && a[0].lag === 0 && b[0].lag === 0;
        return ok ? { a, b } : null;
      },
      { timeoutMs: 45_000, detail: () => Object.fromEntries(seen) },
    );
    expect([split.a[0].partition, split.b[0].partition].sort()).toEqual([0, 1]);
  });
});
