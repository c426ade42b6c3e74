/**
 * The topics of a seeded volume: what the services' outbox relays would have published for the events
 * seed-volume.mjs wrote into their stores, so that a replay from offset 0 (`replay projections
 * --from-offset 0`, a consumer group reset) finds the seeded users as the projections hold them:
 * - chat.user-events: each user's `UserCreated` (the chat product's), keyed by user id;
 * - consent.events: each consent stream's `AppUserIdentified` and `ConsentUpdated`, keyed
 *   `appId:appUserId`.
 * The value is the event as the store gives it back (storedEvent), the headers those of its outbox row,
 * the partition the relays' partitioner picks (murmur2 of the key), each stream's events in one send in
 * stream order. The live consumers then apply them as they would have when they happened (each changes
 * nothing the seed did not already write); `waitForConsumers` waits until every group reading these
 * topics has caught up. Message events are not published: no projection is rebuilt from
 * messaging.events, and its consumers keep their effects by event id.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** Events per produce request: a few hundred kilobytes, under the broker's batch limit on each partition. */
const SEND_SIZE = 2_000;
/** Produce requests in flight: each holds whole streams, so their order between them does not matter. */
const IN_FLIGHT = 8;

/** The stored event as the relays publish it: DomainEvent's fields (storedEvent), as JSON. */
const EVENT_JSON = (e) => `jsonb_build_object('eventId', ${e}.event_id, 'type', ${e}.type, 'schemaVersion', coalesce((${e}.metadata->>'schemaVersion')::int, 1),
  'occurredAt', to_char(${e}.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'appId', ${e}.metadata->'appId',
  'correlationId', ${e}.metadata->'correlationId', 'causationId', ${e}.metadata->'causationId', 'streamId', ${e}.stream_id,
  'streamVersion', ${e}.stream_version, 'data', ${e}.data)::text`;

// $1 app number, $2..$3 its user numbers.
const USER_EVENTS_SQL = `
select u.user_id as key, e.event_id::text as event_id, e.type, e.metadata->>'correlationId' as correlation_id, ${EVENT_JSON('e')} as value
  from seed_users u join chat_sim.events e on e.stream_id = 'user-' || u.user_id
 where u.app_n = $1 and u.n >= $2 and u.n < $3
 order by u.n, e.stream_version`;

const CONSENT_EVENTS_SQL = `
select a.app_id || ':' || u.app_user_id as key, e.event_id::text as event_id, e.type, e.metadata->>'correlationId' as correlation_id, ${EVENT_JSON('e')} as value
  from seed_users u join seed_apps a using (app_n) join consent.events e on e.stream_id = 'consent-' || a.app_id || ':' || u.app_user_id
 where u.app_n = $1 and u.n >= $2 and u.n < $3
 order by u.n, e.stream_version`;

/**
 * Publishes the seeded users' events (the temp tables `seed_apps` and `seed_users` of `db`, the
 * seed's session). Returns the number of records written.
 * @param {{ db: import('pg').Client, brokers: string[], namespace: string, chunk: number, log: (line: string) => void }} options
 */
export async function seedTopics({ db, brokers, namespace, chunk, log }) {
  const { EVENT_HEADERS } = require(path.join(ROOT, 'dist/libs/contracts/src/index.js'));
  const kafka = new kafkajs.Kafka({ clientId: 'seed-volume', brokers, logLevel: kafkajs.logLevel.NOTHING });
  const producer = kafka.producer({ createPartitioner: kafkajs.Partitioners.DefaultPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const { rows: apps } = await db.query('select app_n, users from seed_apps order by app_n');
    let total = 0;
    for (const [topic, sql] of [
      [`${namespace}chat.user-events`, USER_EVENTS_SQL],
      [`${namespace}consent.events`, CONSENT_EVENTS_SQL],
    ]) {
      let written = 0;
      // The next chunk is read while this one is sent.
      const chunks = apps.flatMap((app) =>
        Array.from({ length: Math.ceil(app.users / chunk) }, (_, i) => [app.app_n, i * chunk, Math.min(app.users, (i + 1) * chunk)]),
      );
      let next = chunks.length > 0 ? db.query(sql, chunks[0]) : null;
      for (let c = 0; c < chunks.length; c++) {
        const { rows } = await next;
        next = c + 1 < chunks.length ? db.query(sql, chunks[c + 1]) : null;
        const messages = rows.map((r) => ({
          key: r.key,
          value: r.value,
          headers: {
            [EVENT_HEADERS.eventId]: r.event_id,
            [EVENT_HEADERS.type]: r.type,
            ...(r.correlation_id ? { [EVENT_HEADERS.correlationId]: r.correlation_id } : {}),
          },
        }));
        await sendAll(producer, topic, messages);
        written += messages.length;
      }
      log(`  ${topic}: ${written.toLocaleString('en')} events`);
      total += written;
    }
    return total;
  } finally {
    await producer.disconnect();
  }
}

/** Sends in requests of SEND_SIZE, IN_FLIGHT at a time, never splitting a stream (rows come in stream order). */
async function sendAll(producer, topic, messages) {
  const requests = [];
  for (let start = 0; start < messages.length;) {
    let end = Math.min(messages.length, start + SEND_SIZE);
    while (end < messages.length && messages[end].key === messages[end - 1].key) end++;
    requests.push(messages.slice(start, end));
    start = end;
  }
  for (let i = 0; i < requests.length; i += IN_FLIGHT) {
    await Promise.all(requests.slice(i, i + IN_FLIGHT).map((batch) => producer.send({ topic, messages: batch })));
  }
}

/**
 * Waits until every consumer group of the namespace with members reading these topics has committed
 * up to their ends (the live consumers applied what was published), printing the lag as it falls.
 * @param {{ brokers: string[], namespace: string, topics: string[], timeoutMs?: number, log: (line: string) => void }} options
 */
export async function waitForConsumers({ brokers, namespace, topics, timeoutMs = 30 * 60_000, log }) {
  const kafka = new kafkajs.Kafka({ clientId: 'seed-volume-lag', brokers, logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { groups } = await admin.listGroups();
    const described = await admin.describeGroups(groups.map((g) => g.groupId).filter((id) => id.startsWith(namespace)));
    /** @type {{ groupId: string, topics: string[] }[]} */
    const readers = [];
    for (const group of described.groups) {
      const assigned = new Set();
      for (const member of group.members) {
        const assignment = kafkajs.AssignerProtocol.MemberAssignment.decode(member.memberAssignment);
        for (const topic of Object.keys(assignment?.assignment ?? {})) if (topics.includes(topic)) assigned.add(topic);
      }
      if (assigned.size > 0) readers.push({ groupId: group.groupId, topics: [...assigned] });
    }
    const deadline = Date.now() + timeoutMs;
    let lastLog = 0;
    for (;;) {
      const ends = new Map();
      for (const topic of topics) for (const p of await admin.fetchTopicOffsets(topic)) ends.set(`${topic}:${p.partition}`, BigInt(p.high));
      let lag = 0n;
      for (const reader of readers) {
        for (const { topic, partitions } of await admin.fetchOffsets({ groupId: reader.groupId, topics: reader.topics })) {
          for (const p of partitions) {
            const committed = BigInt(p.offset) < 0n ? 0n : BigInt(p.offset);
            const end = ends.get(`${topic}:${p.partition}`) ?? 0n;
            if (end > committed) lag += end - committed;
          }
        }
      }
      if (lag === 0n) return readers.length;
      if (Date.now() > deadline) throw new Error(`the consumers of ${topics.join(', ')} are still ${lag} events behind`);
      if (Date.now() - lastLog >= 10_000) {
        log(`  consumers (${readers.length} groups) still to apply: ${lag.toLocaleString('en')}`);
        lastLog = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  } finally {
    await admin.disconnect();
  }
}
