/**
 * A real OutboxRelay in its own process, for the crash test of outbox-relay.int.spec.ts (the test
 * SIGKILLs it mid-run). Runs the TypeScript sources through ./ts-register.js, so it needs no build.
 *
 * env: RELAY_SCHEMA, RELAY_DATABASE_URL (the service role), RELAY_TOPIC (every event goes there, keyed
 *      by its stream), KAFKA_BROKERS, RELAY_BATCH_SIZE, RELAY_POLL_MS, RELAY_STALL_AT_BATCH (n > 0:
 *      after Kafka acknowledged the n-th batch, the relay never gets to move its cursor or commit; the
 *      parent kills it right there).
 * IPC: { type: 'started' }, { type: 'published', total } after every committed batch, and
 *      { type: 'stalled', batch, eventIds } once the stalled batch is on Kafka.
 */
'use strict';
require('./ts-register');
const { Partitioners } = require('kafkajs');
const { OutboxRelay } = require('../../../event-store/src/outbox-relay');
const { createKafka, parseBrokers } = require('../../../kafka/src/kafka-client');

const env = process.env;
const send = (message) => process.send?.(message);

async function main() {
  if (!env.RELAY_SCHEMA || !env.RELAY_DATABASE_URL) throw new Error('RELAY_SCHEMA and RELAY_DATABASE_URL are required');
  const kafka = createKafka(`outbox-relay-child-${process.pid}`, parseBrokers(env.KAFKA_BROKERS));
  // Same producer settings as ServiceRuntime.
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  await producer.connect();

  // The dangerous window of a crash: Kafka has acknowledged the batch, but the relay has neither
  // moved its cursor nor committed. Batch n stops right there, so the SIGKILL lands inside it.
  const stallAt = Number(env.RELAY_STALL_AT_BATCH ?? 0);
  let batches = 0;
  const sendBatch = producer.sendBatch.bind(producer);
  producer.sendBatch = async (batch) => {
    const result = await sendBatch(batch);
    batches++;
    if (batches === stallAt) {
      const eventIds = batch.topicMessages.flatMap((t) => t.messages.map((m) => m.headers['event-id']));
      send({ type: 'stalled', batch: batches, eventIds });
      await new Promise(() => undefined);
    }
    return result;
  };

  let total = 0;
  const relay = new OutboxRelay({
    schema: env.RELAY_SCHEMA,
    databaseUrl: env.RELAY_DATABASE_URL,
    producer,
    route: (event) => ({ topic: env.RELAY_TOPIC, key: event.streamId, aggregateType: 'thing' }),
    batchSize: Number(env.RELAY_BATCH_SIZE ?? 200),
    pollIntervalMs: Number(env.RELAY_POLL_MS ?? 1000),
    onError: (error) => process.stderr.write(`outbox relay child error: ${String(error?.stack ?? error)}\n`),
    onPublished: (count) => {
      total += count;
      send({ type: 'published', total });
    },
  });
  await relay.start();
  send({ type: 'started' });

  process.on('SIGTERM', () => {
    void relay
      .stop()
      .then(() => producer.disconnect())
      .finally(() => process.exit(0));
  });
}

main().catch((error) => {
  process.stderr.write(`outbox relay child failed: ${String(error?.stack ?? error)}\n`);
  process.exit(1);
});
