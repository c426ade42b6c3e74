/**
 * Projection rebuild rate: seeds N message events (default 100 000: Accepted, Sent, Delivered, Read for
 * N/4 messages, each kind after the previous one so a message's events span pages) straight into
 * messaging's event store, then runs `replay projections --service messaging` against the bench stack
 * and reports events per second. Usage: npm run bench:projections [-- --events 100000]
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { benchEnv, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({ options: { events: { type: 'string', default: '100000' }, 'page-size': { type: 'string', default: '10000' } } });
const messages = Math.ceil(Number(values.events) / 4);

await withBenchStack(async ({ admin }) => {
  const { appId } = await seedApp(admin, 'Rebuild');
  const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
  await db.connect();
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
  const out = execFileSync(process.execPath, [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'messaging', '--page-size', values['page-size']], {
    env: { ...process.env, DATABASE_URL: benchEnv.DATABASE_URL },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
