/**
 * The same reads and sends on a nearly empty database and on one holding months of data
 * (seed-volume.mjs), each on a fresh stack, one after the other in one run, printed side by side:
 * - POST /messages at an even --rate (to 200 fresh testers of a fresh app, as bench:messages does),
 *   --windows windows after one warm-up, the median of their p50s and of their p99s: one window's
 *   p99 moves by more than the 20 % compared from one run of the same code to the next;
 * - GET /users/{appUserId} over 1 000 users of the big app (closed loop, 50 connections);
 * - GET /consents paged 100 at a time through the big app (100 000 consents at full volume), per page,
 *   walked again on a smaller app until 1 000 pages were read (so both p99s are of as many reads);
 * - GET /webhook-deliveries paged 100 at a time, --delivery-pages pages (walked again where fewer), per page;
 * - `platformctl trace message` on the big app's oldest message, per run of the CLI;
 * - `replay projections --service consent` (every consent event of the store), events/s;
 * - `replay projections --service messaging --from-offset 0` (its projections of the users' and
 *   consents' topics, which the seed filled), events/s, checked to rebuild the audience it had.
 * The target (issue "cost as the work grows"): every figure within 20 % of the nearly empty database.
 * Usage: npm run bench:volume [-- --scale 1 --rate 500 --seconds 20 --windows 3 --delivery-pages 200 --only empty|volume]
 * (--scale: fraction of the full volume, 100 apps, 1 000 000 users, 10 000 000 messages, 5 000 000 deliveries)
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { benchEnv, inParallel, measure, paced, postJson, seedApp, withBenchStack } from './bench-stack.mjs';
import { FULL_VOLUME, seedVolume } from './seed-volume.mjs';
import { percentile } from './latency.mjs';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    rate: { type: 'string', default: '500' },
    seconds: { type: 'string', default: '20' },
    windows: { type: 'string', default: '3' },
    'delivery-pages': { type: 'string', default: '200' },
    only: { type: 'string' },
  },
});
const scale = Number(values.scale);
const scaled = (n) => Math.max(1, Math.round(n * scale));
/** A database with a few of everything: the planner's and the caches' best case. */
const NEARLY_EMPTY = { apps: 1, users: 1_000, bigAppUsers: 1_000, messages: 2_000, deliveries: 2_000, days: 90 };
const VOLUME = {
  apps: scaled(FULL_VOLUME.apps),
  users: scaled(FULL_VOLUME.users),
  bigAppUsers: scaled(FULL_VOLUME.bigAppUsers),
  messages: scaled(FULL_VOLUME.messages),
  deliveries: scaled(FULL_VOLUME.deliveries),
  days: FULL_VOLUME.days,
};

const summary = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, p50Ms: Math.round(percentile(sorted, 50) * 10) / 10, p99Ms: Math.round(percentile(sorted, 99) * 10) / 10 };
};

/** Every figure of one database, measured on a stack of its own. */
async function measureOn(label, volume) {
  return withBenchStack(async ({ publicUrl, admin, adminMetricsUrl }) => {
    const kafka = { brokers: benchEnv.KAFKA_BROKERS.split(','), namespace: benchEnv.KAFKA_NAMESPACE };
    const apps = await seedVolume({ databaseUrl: benchEnv.DATABASE_URL, admin, volume, kafka, log: (line) => console.log(`[${label}] ${line}`) });
    const big = apps[0];
    const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
    await db.connect();
    const figures = {};
    try {
      const get = async (route) => {
        const started = performance.now();
        const res = await fetch(publicUrl + route, { headers: { authorization: `Bearer ${big.key}` } });
        const body = /** @type {any} */ (await res.json());
        if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${JSON.stringify(body)}`);
        return { body, ms: performance.now() - started };
      };

      // Sends, as bench:messages --rate: accepted testers of a fresh app.
      const app = await seedApp(admin, volume === NEARLY_EMPTY ? 'EmptySends' : 'VolumeSends');
      await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 100_000_000 });
      const recipients = await inParallel(
        Array.from({ length: 200 }, (_, i) => i),
        8,
        async (i) => {
          const user = await admin('POST', '/users', { orgId: app.orgId, email: `volume-send-${i}-${Date.now()}@example.test` });
          await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id });
          await admin('POST', `/sim/users/${user.id}/apps/${app.appId}/accept-tester`);
          return (await admin('POST', `/sim/users/${user.id}/messages`, { appId: app.appId, type: 'text', text: 'hi' })).appUserId;
        },
      );
      const windows = Math.max(1, Number(values.windows));
      const sends = /** @type {any} */ (
        await paced(`[${label}] POST /messages at an even rate`, {
          rate: Number(values.rate),
          seconds: Number(values.seconds),
          windows,
          metricsUrl: adminMetricsUrl,
          send: (i) =>
            postJson(
              `${publicUrl}/messages`,
              { authorization: `Bearer ${app.key}`, 'idempotency-key': randomUUID() },
              JSON.stringify({ to: { appUserId: recipients[i % recipients.length] }, type: 'text', text: `volume ${i}` }),
            ),
        })
      );
      /** @type {(values: number[]) => number} */
      const median = (samples) =>
        percentile(
          [...samples].sort((a, b) => a - b),
          50,
        );
      figures.sendsP50Ms = windows > 1 ? median(sends.p50Ms) : sends.latencyMs.p50;
      figures.sendsP99Ms = windows > 1 ? median(sends.p99Ms) : sends.latencyMs.p99;

      // GET /users/{appUserId} over the big app's users, found through the primary key.
      const { rows: users } = await db.query(`select app_user_id from consent.consents where app_id = $1 order by app_user_id limit 1000`, [big.appId]);
      let n = 0;
      const lookups = await measure(
        `[${label}] GET /users/{appUserId}`,
        {
          url: `${publicUrl}/users/${users[0].app_user_id}`,
          headers: { authorization: `Bearer ${big.key}` },
          connections: 50,
          duration: 10,
          requests: [{ setupRequest: (req) => ({ ...req, path: `/platform/v1/users/${users[n++ % users.length].app_user_id}` }) }],
        },
        { users: users.length },
      );
      figures.usersPerSecond = lookups.requestsPerSecond;
      figures.usersP99Ms = lookups.latencyMs.p99;

      // Every consent of the big app, a page at a time; walked again until as many pages were read as
      // the full volume has (1 000), so both databases' p99 are of as many reads.
      const consentPages = [];
      do {
        let cursor = null;
        do {
          const { body, ms } = await get(`/consents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          consentPages.push(ms);
          cursor = body.nextCursor;
        } while (cursor);
      } while (consentPages.length < Math.ceil(FULL_VOLUME.bigAppUsers / 100));
      const consents = summary(consentPages);
      figures.consentPages = consents.n;
      figures.consentPageP50Ms = consents.p50Ms;
      figures.consentPageP99Ms = consents.p99Ms;

      // The newest deliveries, --delivery-pages pages of them, walked again where there are fewer.
      const deliveryPages = [];
      do {
        let cursor = null;
        do {
          const { body, ms } = await get(`/webhook-deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          deliveryPages.push(ms);
          cursor = body.nextCursor;
        } while (cursor && deliveryPages.length < Number(values['delivery-pages']));
      } while (deliveryPages.length < Number(values['delivery-pages']));
      const deliveries = summary(deliveryPages);
      figures.deliveryPages = deliveries.n;
      figures.deliveryPageP50Ms = deliveries.p50Ms;
      figures.deliveryPageP99Ms = deliveries.p99Ms;

      const {
        rows: [oldest],
      } = await db.query(`select message_id from messaging.messages where app_id = $1 and message_id < 'msg_1' order by message_id limit 1`, [big.appId]);
      const traces = [];
      for (let run = 0; run < 5; run++) {
        const started = performance.now();
        execFileSync(process.execPath, [path.join(ROOT, 'tools/platformctl/platformctl.mjs'), 'trace', 'message', oldest.message_id, '--json'], {
          env: { ...process.env, DATABASE_URL: benchEnv.DATABASE_URL },
        });
        traces.push(performance.now() - started);
      }
      figures.traceMedianMs = summary(traces).p50Ms;

      const out = execFileSync(process.execPath, [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'consent'], {
        env: { ...process.env, DATABASE_URL: benchEnv.DATABASE_URL },
        maxBuffer: 64 * 1024 * 1024,
      });
      const rebuild = JSON.parse(out.toString().trim().split('\n').pop());
      figures.consentRebuildEvents = rebuild.events;
      figures.consentRebuildEventsPerSecond = rebuild.eventsPerSecond;

      // From the topics: the seeded users are on them, so the rebuilt audience is the one seeded.
      const audience = async () =>
        (
          await db.query(
            `select (select count(*) from messaging.recipients)::int as recipients, (select count(*) from messaging.app_users)::int as app_users,
                    (select count(*) from messaging.consents)::int as consents`,
          )
        ).rows[0];
      const audienceBefore = await audience();
      const fromTopics = execFileSync(
        process.execPath,
        [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'messaging', '--from-offset', '0', '--quiet'],
        // The stack's secret: the services' default outside production unless the environment names one.
        { env: { APP_USER_ID_SECRET: 'dev-app-user-id-secret', ...process.env, ...benchEnv }, maxBuffer: 64 * 1024 * 1024 },
      );
      const topicRebuild = JSON.parse(fromTopics.toString().trim().split('\n').pop());
      figures.messagingTopicRebuildEvents = topicRebuild.events;
      figures.messagingTopicRebuildEventsPerSecond = topicRebuild.eventsPerSecond;
      const audienceAfter = await audience();
      if (JSON.stringify(audienceAfter) !== JSON.stringify(audienceBefore)) {
        console.error(`the rebuild from the topics changed the audience: ${JSON.stringify(audienceBefore)} → ${JSON.stringify(audienceAfter)}`);
        process.exitCode = 1;
      }
    } finally {
      await db.end();
    }
    console.log(JSON.stringify({ bench: `volume figures (${label})`, volume, ...figures }, null, 2));
    return figures;
  });
}

const empty = values.only === 'volume' ? null : await measureOn('nearly empty', NEARLY_EMPTY);
const full = values.only === 'empty' ? null : await measureOn(`volume x${scale}`, VOLUME);
if (empty && full) {
  // Lower is better for times, higher for rates; "within" is the volume figure against the empty one.
  const higherIsBetter = new Set(['usersPerSecond', 'consentRebuildEventsPerSecond', 'messagingTopicRebuildEventsPerSecond']);
  const rows = Object.keys(empty)
    .filter((k) => typeof empty[k] === 'number' && !['consentPages', 'deliveryPages', 'consentRebuildEvents', 'messagingTopicRebuildEvents'].includes(k))
    .map((k) => {
      const change = (full[k] - empty[k]) / empty[k];
      const worse = higherIsBetter.has(k) ? -change : change;
      return { figure: k, empty: empty[k], volume: full[k], changePercent: Math.round(change * 1000) / 10, within20Percent: worse <= 0.2 };
    });
  console.log(JSON.stringify({ bench: 'volume against nearly empty, same run', scale, rows }, null, 2));
}
