/**
 * GET /apps/{appId} (the overview with its two 30-day charts) as a signed-in member: requests per
 * second and p50/p99 latency. Starts its own stack, makes an app whose creator is its owner, and
 * seeds what 30 days × 10 000 messages a day leave in the projections the page reads: messaging's
 * messages per day by status (one row a day, as message-counts applying each MessageSent,
 * MessageDelivered, MessageRead and MessageFailed would leave it) and the dispatcher's hourly delivery
 * counts of two endpoints subscribed to message.status (a row per endpoint, hour and the four slots of
 * four dispatcher processes). The page's cost is in those rows, not in the events that made them.
 * A session is opened straight in the console's table (the sign-in by emailed link is not measured).
 * Usage: npm run bench:console [-- --seconds 15 --connections 4]
 */
import { createHash, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_BASE_PORT, benchEnv, measure, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' }, connections: { type: 'string', default: '4' } } });
const MESSAGES_PER_DAY = 10_000;
const DAYS = 30;
const ENDPOINTS = 2;
const SLOTS = 4;

await withBenchStack(async ({ admin }) => {
  const owner = `owner.${Date.now()}@bench.example`;
  const org = await admin('POST', '/orgs', { name: 'Overview', allowsExternalBusinesses: true });
  const app = await admin('POST', '/apps', { orgId: org.id, handle: `overview-${Date.now()}`, displayName: 'Overview', creatorEmail: owner });
  const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
  await db.connect();
  try {
    // The console learns the app and its owner from profile.events.
    for (let i = 0; ; i++) {
      const { rows } = await db.query(`select 1 from console.members where app_id = $1 and email = $2`, [app.id, owner]);
      if (rows.length > 0) break;
      if (i > 300) throw new Error('the console never learned the app owner');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Per day: every message sent, 95 % delivered, 60 % read, 1 % failed.
    await db.query(
      `insert into messaging.message_daily_counts (app_id, day, sent, delivered, read, failed)
       select $1, (now() at time zone 'UTC')::date - d, $2, $2 * 95 / 100, $2 * 60 / 100, $2 / 100 from generate_series(0, $3 - 1) as d`,
      [app.id, MESSAGES_PER_DAY, DAYS],
    );
    // Each endpoint gets a message.status delivery per status event (sent, delivered, read): 98 % delivered at once, 1 % later, 1 % failed.
    const perHourAndSlot = Math.ceil((MESSAGES_PER_DAY * 2.56) / 24 / SLOTS);
    await db.query(
      `insert into webhook_dispatcher.delivery_hourly_counts
         (endpoint_id, hour, slot, app_id, delivered, delivered_first_attempt, failed, attempts, durations, last_error, last_error_at)
       select 'we_BENCH' || e, date_trunc('hour', now(), 'UTC') - make_interval(hours => h), s, $1, $2 * 99 / 100, $2 * 98 / 100, $2 / 100, $2 + $2 / 50,
              array[0, $2 / 2, $2 / 4, $2 / 5, $2 / 50, 0, 0, 0, $2 / 100, 0], 'answered 503', date_trunc('hour', now(), 'UTC') - make_interval(hours => h)
         from generate_series(1, $3::int) as e, generate_series(0, $4::int * 24 - 1) as h, generate_series(1, $5::int) as s`,
      [app.id, perHourAndSlot, ENDPOINTS, DAYS, SLOTS],
    );
    await db.query('analyze messaging.message_daily_counts; analyze webhook_dispatcher.delivery_hourly_counts');
    const token = randomBytes(32).toString('base64url');
    await db.query(
      `insert into console.sessions (session_hash, email, csrf_token, created_at, expires_at) values ($1, $2, $3, now(), now() + interval '12 hours')`,
      [createHash('sha256').update(token).digest('hex'), owner, randomBytes(32).toString('base64url')],
    );
    const url = `http://127.0.0.1:${BENCH_BASE_PORT + 2}/apps/${app.id}`;
    const first = await fetch(url, { headers: { cookie: `console_session=${token}` } });
    const body = await first.text();
    if (first.status !== 200 || !body.includes(`${(MESSAGES_PER_DAY * DAYS).toLocaleString('en-GB')} sent`)) {
      throw new Error(`the overview did not show the seeded days: ${first.status} ${body.slice(0, 300)}`);
    }
    return await measure(
      'GET /apps/{appId} (console overview, 30 days × 10 000 messages a day)',
      { url, headers: { cookie: `console_session=${token}` }, connections: Number(values.connections), duration: Number(values.seconds) },
      { pageBytes: Buffer.byteLength(body) },
    );
  } finally {
    await db.end();
  }
});
