/**
 * Projection rebuild rate, with the bench stack running.
 * From the event store (default): seeds N message events (default 100 000: Accepted, Sent, Delivered,
 * Read for N/4 messages, each kind after the previous one so a message's events span pages; streams
 * as sends wrote them before one event per send, D3) straight into messaging's event store, then runs
 * `replay projections --service messaging`.
 * From topics (--source topics): produces N ConsentUpdated events to consent.events, waits until
 * messaging's live consumer has applied them, then runs `replay projections --service messaging
 * --from-offset 0` (every one is checked against the live inbox and applied through the live handler).
 * Reports events per second. Usage: npm run bench:projections [-- --events 100000 --source store|topics]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import kafkajs from 'kafkajs';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { benchEnv, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '100000' }, 'page-size': { type: 'string' }, source: { type: 'string', default: 'store' } },
});
if (!['store', 'topics'].includes(values.source)) throw new Error('--source must be store or topics');
/** The services' non-production default (libs/service-kit config), which the bench stack runs with. */
const BENCH_APP_USER_ID_SECRET = 'dev-app-user-id-secret';
const messages = Math.ceil(Number(values.events) / 4);

await withBenchStack(async ({ admin }) => {
  const { appId } = await seedApp(admin, 'Rebuild');
  const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
  await db.connect();
  if (values.source === 'topics') {
    await fromTopics(db, appId);
    await db.end();
    return;
  }
  await db.query(
    `insert into messaging.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at)
     select 'message-msg_BENCH' || i, s.v, gen_random_uuid(), s.t,
       case when s.v = 1 then jsonb_build_object('messageId', 'msg_BENCH' || i, 'appUserId', 'u_' || (i % 997), 'clientReference', null, 'userId', 'usr_' || (i % 997),
                                                 'type', 'text', 'text', 'bench ' || i, 'media', '[]'::jsonb, 'businessInitiated', i % 3 = 0)
            else jsonb_build_object('messageId', 'msg_BENCH' || i, 'appUserId', 'u_' || (i % 997), 'clientReference', null) end,
       jsonb_build_object('schemaVersion', 1, 'appId', $1::text, 'correlationId', null, 'causationId', null),
       now() - interval '1 day' + make_interval(secs => i * 0.5 + s.v)
     from generate_series(1, $2::int) as i cross join (values (1, 'MessageAccepted'), (2, 'MessageSent'), (3, 'MessageDelivered'), (4, 'MessageRead')) as s(v, t)
     order by s.v, i`,
    [appId, messages],
  );
  const [{ n: events }] = (await db.query(`select count(*)::int as n from messaging.events`)).rows;
  const before = (await db.query(`select count(*)::int as n from messaging.messages`)).rows[0].n;
  const out = execFileSync(
    process.execPath,
    [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'messaging', '--page-size', values['page-size'] ?? '10000'],
    {
      env: { ...process.env, DATABASE_URL: benchEnv.DATABASE_URL },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const report = JSON.parse(out.toString().trim().split('\n').pop());
  const { rows } = await db.query(`select status, count(*)::int as n from messaging.messages group by status order by status`);
  await db.end();
  console.log(
    JSON.stringify(
      {
        bench: 'projection rebuild (messaging, from the event store)',
        events,
        messagesBefore: before,
        seconds: report.seconds,
        eventsPerSecond: report.eventsPerSecond,
        bulkEventsPerSecond: report.bulkEventsPerSecond,
        swapLockMs: report.swapLockMs,
        rows: report.rows,
        statuses: Object.fromEntries(rows.map((r) => [r.status, r.n])),
      },
      null,
      2,
    ),
  );
});

async function fromTopics(db, appId) {
  const events = Number(values.events);
  const kafka = new kafkajs.Kafka({ clientId: 'bench-projections', brokers: benchEnv.KAFKA_BROKERS.split(','), logLevel: kafkajs.logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const topic = `${benchEnv.KAFKA_NAMESPACE}consent.events`;
  // Real appUserIds (the bench stack's secret): the rebuild checks its secret against them.
  const { appUserIdFor } = createRequire(import.meta.url)(path.join(ROOT, 'dist/libs/contracts/src/index.js'));
  const at = new Date().toISOString();
  for (let from = 0; from < events; from += 2000) {
    const messages = [];
    for (let i = from; i < Math.min(events, from + 2000); i++) {
      const userId = `usr_bench${i}`;
      const appUserId = appUserIdFor(BENCH_APP_USER_ID_SECRET, appId, userId);
      const event = {
        eventId: randomUUID(),
        type: 'ConsentUpdated',
        schemaVersion: 1,
        occurredAt: at,
        appId,
        correlationId: null,
        causationId: null,
        streamId: `consent-${appId}-${appUserId}`,
        streamVersion: 1,
        data: {
          appUserId,
          userId,
          status: 'opted_in',
          previousStatus: null,
          source: 'user_initiated',
          ref: null,
          reason: null,
          optedInAt: at,
          optedOutAt: null,
        },
      };
      messages.push({ key: `${appId}:${appUserId}`, value: JSON.stringify(event) });
    }
    await producer.send({ topic, messages });
  }
  await producer.disconnect();
  // The rebuild copies what the live consumer applied: wait until it has applied them all.
  const appliedStarted = performance.now();
  for (;;) {
    const [{ n }] = (await db.query(`select count(*)::int as n from messaging.consents where app_id = $1`, [appId])).rows;
    process.stderr.write(`\rlive consumer applied ${n}/${events}`);
    if (n >= events) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const liveSeconds = (performance.now() - appliedStarted) / 1000;
  process.stderr.write('\n');
  const out = execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'),
      '--service',
      'messaging',
      '--from-offset',
      '0',
      ...(values['page-size'] ? ['--page-size', values['page-size']] : []),
    ],
    { env: { ...process.env, ...benchEnv, APP_USER_ID_SECRET: BENCH_APP_USER_ID_SECRET }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const report = JSON.parse(out.toString().trim().split('\n').pop());
  const [{ n: consents }] = (await db.query(`select count(*)::int as n from messaging.consents where app_id = $1`, [appId])).rows;
  console.log(
    JSON.stringify(
      {
        bench: 'projection rebuild (messaging, from topics)',
        produced: events,
        liveConsumerEventsPerSecond: Math.round(events / liveSeconds),
        messages: report.messages,
        events: report.events,
        seconds: report.seconds,
        eventsPerSecond: report.eventsPerSecond,
        bulkMessagesPerSecond: report.bulkMessagesPerSecond,
        swapLockMs: report.swapLockMs,
        leftToLiveConsumer: report.leftToLiveConsumer,
        rows: report.rows,
        consentsOfTheApp: consents,
      },
      null,
      2,
    ),
  );
}
