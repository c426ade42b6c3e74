/**
 * Extra replicas of the services that scale out (gateway, messaging, webhook-dispatcher) beside a
 * bench stack, and the checks a run over them must pass: every accepted send stored once and handed
 * to the chat product once, every `sent` webhook arrived, and every stream's events in order on Kafka.
 */
import { Kafka, logLevel } from 'kafkajs';
import { APPS, healthPort, LOG_DIR, spawnApp, stopChildren, waitReady } from '../dev/stack.mjs';

/** The services a bench runs more than once with `--replicas`; the others stay single. */
export const REPLICATED_APPS = /** @type {const} */ (['gateway', 'messaging', 'webhook-dispatcher']);

/** Replica r (from 1) of an app listens 100·r above the first stack's port of that app. */
function replicaPort(basePort, app, r) {
  return basePort + 100 * r + APPS[app];
}

/**
 * Starts replicas 1…count-1 of each replicated app (replica 0 is the stack's own), waits until each is
 * ready, and returns them with the public URL of every gateway (the first stack's included).
 * @param {{ basePort: number, count: number, env: NodeJS.ProcessEnv, tag: string }} options
 */
export async function startReplicas({ basePort, count, env, tag }) {
  /** @type {{ app: string, child: import('node:child_process').ChildProcess }[]} */
  const started = [];
  const ready = [];
  for (let r = 1; r < count; r++)
    for (const app of REPLICATED_APPS) {
      const port = replicaPort(basePort, app, r);
      const child = spawnApp(app, { port, env, logDir: LOG_DIR, tag: `${tag}-r${r}` });
      started.push({ app, child });
      ready.push(waitReady(`http://127.0.0.1:${healthPort(app, port)}/readyz`, 120_000, child));
    }
  try {
    await Promise.all(ready);
  } catch (error) {
    await stopChildren(started.map((s) => s.child));
    throw error;
  }
  const replicaIds = Array.from({ length: count }, (_, r) => r);
  return {
    started,
    publicUrls: replicaIds.map((r) => `http://127.0.0.1:${r === 0 ? basePort : replicaPort(basePort, 'gateway', r)}/platform/v1`),
    /** Each messaging replica's /metrics. */
    messagingMetricsUrls: replicaIds.map((r) => `http://127.0.0.1:${r === 0 ? basePort + APPS.messaging : replicaPort(basePort, 'messaging', r)}/metrics`),
  };
}

/** `outbox_published_total` of each messaging replica: how the publishing was shared. */
export async function outboxPublishedPerReplica(metricsUrls) {
  return Promise.all(
    metricsUrls.map(async (url) => {
      const text = await (await fetch(url)).text();
      const line = text.split('\n').find((l) => l.startsWith('outbox_published_total'));
      return line ? Number(line.split(' ').pop()) : 0;
    }),
  );
}

/**
 * Reads a topic from its start to its end as of now and checks, per stream, that versions only go up
 * in (partition, offset) order: a version seen before is a redelivery (at-least-once, counted), a new
 * version below the highest seen is a reordering (counted). Gaps are allowed: a stream's other events
 * may go to other topics.
 * @param {{ brokers: string[], topic: string }} options
 */
export async function checkStreamOrder({ brokers, topic }) {
  const kafka = new Kafka({ clientId: 'bench-order-check', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const remaining = new Map(ends.filter((p) => Number(p.high) > Number(p.low)).map((p) => [p.partition, Number(p.high)]));
  /** @type {Map<string, number>} */
  const highest = new Map();
  /** @type {Set<string>} */
  const seen = new Set();
  let events = 0;
  let redelivered = 0;
  let reordered = 0;
  const consumer = kafka.consumer({ groupId: `bench-order-check-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise((resolve, reject) => {
    if (remaining.size === 0) return resolve(undefined);
    consumer
      .run({
        eachMessage: async ({ partition, message }) => {
          const event = JSON.parse(String(message.value));
          events++;
          const id = `${event.streamId}@${event.streamVersion}`;
          if (seen.has(id)) redelivered++;
          else {
            seen.add(id);
            const top = highest.get(event.streamId) ?? 0;
            if (event.streamVersion < top) reordered++;
            else highest.set(event.streamId, event.streamVersion);
          }
          if (Number(message.offset) + 1 >= (remaining.get(partition) ?? Infinity)) remaining.delete(partition);
          if (remaining.size === 0) resolve(undefined);
        },
      })
      .catch(reject);
  });
  await consumer.disconnect();
  return { topic, events, streams: highest.size, redelivered, reordered };
}
