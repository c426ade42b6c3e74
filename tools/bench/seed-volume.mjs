/**
 * Fills a running stack's database with what months of traffic leave behind, fast: apps created
 * through the admin API (so every service knows them, made `internal_live`), then users, consents,
 * messages and webhook deliveries written with set-based SQL straight into each service's tables and
 * event store, as the services would have written them:
 * - per user: the chat product's user (`chat_sim.users` and its `UserCreated`), messaging's recipient
 *   and app user, consent's app user and opted-in consent (`opt_in_link`) with its version row and
 *   list sequence, messaging's consent copy, and the consent stream (`AppUserIdentified`,
 *   `ConsentUpdated`); app user ids are the HMAC the services compute (`APP_USER_ID_SECRET`);
 * - per message: the row (`delivered`), its stream as sends wrote it before D3's one event per send
 *   (`MessageAccepted`, `MessageSent`, `MessageDelivered`), the chat inbox row, the day's counter;
 * - per webhook delivery (the most recent messages' `sent` and `delivered` statuses, inside the 30 days
 *   deliveries are kept): the public event, the delivery (`delivered`) and its attempt, to one
 *   endpoint per app (disabled since, so no new event is delivered to its made-up URL).
 * Times spread evenly over `days` (messages) and the last 25 days (deliveries). The users' events go on
 * the topics too (seed-topics.mjs), so a replay from offset 0 finds them; then the tool waits until the
 * live consumers have applied them. Not seeded: the chat product's relationship streams, media, and
 * message events on messaging.events (no projection is rebuilt from it).
 * Usage: node tools/bench/seed-volume.mjs --database URL --admin URL [--token T --apps 100 --users 1000000 --big-app-users
 *   100000 --messages 10000000 --deliveries 5000000 --days 90 --now ISO --brokers host:port --namespace N --skip-topics]
 * (`--brokers`, `--namespace`: the stack's KAFKA_BROKERS and KAFKA_NAMESPACE, by default from the
 * environment; `--skip-topics`: the database only, for a test that removes what it seeded)
 * (`--now`: the stack's clock when not the real one; APP_USER_ID_SECRET as the services'; the first app
 * holds --big-app-users users, the others share the rest). Prints each step's rows and rate.
 * `--remove app_1,app_2`: deletes what was seeded for those apps (removeVolume).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { seedTopics, waitForConsumers } from './seed-topics.mjs';
import { DAILY_COUNTS_SQL, DELIVERIES_SQL, ENDPOINTS_SQL, MESSAGES_SQL, REMOVE_BY_APP, REMOVE_BY_ORG, SEED_FUNCTIONS, USERS_SQL } from './seed-volume.sql.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** How many rows the tool writes per statement: big enough to amortise, small enough to show progress. */
const CHUNK = 200_000;
/** What the seed writes into (the tables of seed-volume.sql.mjs). */
const SEEDED_TABLES = [
  'chat_sim.users',
  'chat_sim.events',
  'chat_sim.inbox_messages',
  'messaging.recipients',
  'messaging.app_users',
  'messaging.consents',
  'messaging.messages',
  'messaging.events',
  'messaging.daily_counts',
  'consent.app_users',
  'consent.consents',
  'consent.consent_versions',
  'consent.consent_list_seq',
  'consent.events',
  'webhook_dispatcher.endpoints',
  'webhook_dispatcher.public_events',
  'webhook_dispatcher.deliveries',
  'webhook_dispatcher.delivery_attempts',
];
/** Users whose events are read back and published at once: a few hundred thousand records in memory. */
const TOPIC_CHUNK = 50_000;

/**
 * @typedef {{ apps: number, users: number, bigAppUsers: number, messages: number, deliveries: number, days: number }} Volume
 * @typedef {{ orgId: string, appId: string, key: string }} SeededApp
 */

/** The "months of data": 100 apps, 1 000 000 users, 10 000 000 messages, 5 000 000 deliveries. */
export const FULL_VOLUME = { apps: 100, users: 1_000_000, bigAppUsers: 100_000, messages: 10_000_000, deliveries: 5_000_000, days: 90 };

/**
 * Seeds `volume` into the stack behind `databaseUrl` and `admin` (the admin client of bench-stack).
 * Returns the apps, the first being the big one.
 * `kafka`: the stack's brokers and topic namespace, where the users' events are published; null: not published.
 * @param {{ databaseUrl: string, admin: (method: string, route: string, body?: unknown) => Promise<any>, volume: Volume,
 *   kafka: { brokers: string[], namespace: string } | null, appUserIdSecret?: string, now?: Date, log?: (line: string) => void }} options
 * @returns {Promise<SeededApp[]>}
 */
export async function seedVolume({ databaseUrl, admin, volume, kafka, appUserIdSecret = 'dev-app-user-id-secret', now = new Date(), log = console.log }) {
  const { appUserIdFor } = require(path.join(ROOT, 'dist/libs/contracts/src/index.js'));
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const started = performance.now();
  /** @param {string} what @param {() => Promise<number>} step */
  const timed = async (what, step) => {
    const t0 = performance.now();
    const rows = await step();
    const seconds = (performance.now() - t0) / 1000;
    log(`${what}: ${rows.toLocaleString('en')} rows in ${seconds.toFixed(1)} s (${Math.round(rows / Math.max(seconds, 0.001)).toLocaleString('en')}/s)`);
  };
  try {
    /** @type {SeededApp[]} */
    const apps = [];
    await timed('apps (admin API, internal_live)', async () => {
      for (let a = 0; a < volume.apps; a++) {
        const org = await admin('POST', '/orgs', { name: `Volume ${a}`, allowsExternalBusinesses: true });
        const app = await admin('POST', '/apps', { orgId: org.id, handle: `volume-${a}-${now.getTime()}`, displayName: `Volume ${a}` });
        await admin('PATCH', `/apps/${app.id}`, { dailyQuota: 100_000_000 });
        await admin('POST', `/apps/${app.id}/status`, { action: 'approve' });
        const key = await admin('POST', `/apps/${app.id}/keys`, { environment: 'live' });
        apps.push({ orgId: org.id, appId: app.id, key: key.key });
      }
      await waitForProjections(db, apps);
      return apps.length;
    });
    await db.query(SEED_FUNCTIONS);
    await db.query(`create temp table seed_apps (app_n int primary key, app_id text, org_id text, endpoint_id text, users int, messages int)`);
    // The big app first; the other apps share the rest, the remainder one each to the first of them.
    const others = Math.max(1, volume.apps - 1);
    const rest = Math.max(0, volume.users - volume.bigAppUsers);
    const usersOf = (a) => (a === 0 ? Math.min(volume.bigAppUsers, volume.users) : Math.floor(rest / others) + (a - 1 < rest % others ? 1 : 0));
    const messagesPerApp = Math.floor(volume.messages / volume.apps);
    // Message numbers per app in one statement: about CHUNK rows of each kind, whatever the number of apps.
    const chunkPerApp = Math.max(1, Math.floor(CHUNK / apps.length));
    await db.query(
      `insert into seed_apps select n - 1, app_id, org_id, 'we_' || pg_temp.seed_id(0, n), users, $4
         from unnest($1::text[], $2::text[], $3::int[]) with ordinality as a(app_id, org_id, users, n)`,
      [apps.map((a) => a.appId), apps.map((a) => a.orgId), apps.map((_, a) => usersOf(a)), messagesPerApp],
    );

    await timed('users and consents', async () => {
      await db.query(`create temp table seed_users (app_n int, n int, user_id text, app_user_id text, at timestamptz, primary key (app_n, n))`);
      let total = 0;
      for (const [a, app] of apps.entries()) {
        const count = usersOf(a);
        for (let from = 0; from < count; from += CHUNK) {
          const n = Array.from({ length: Math.min(CHUNK, count - from) }, (_, i) => from + i);
          const userIds = n.map((i) => `usr_${hexId(1 + a, i)}`);
          await db.query(
            `insert into seed_users select $1, n, user_id, app_user_id, $5::timestamptz - (($6::float8 * (1 - n::float8 / $7)) * interval '1 day')
               from unnest($2::int[], $3::text[], $4::text[]) as u(n, user_id, app_user_id)`,
            [a, n, userIds, userIds.map((id) => appUserIdFor(appUserIdSecret, app.appId, id)), now, volume.days, count],
          );
          total += n.length;
        }
        log(`  users of app ${a + 1}/${apps.length}: ${count.toLocaleString('en')}`);
      }
      await db.query(USERS_SQL);
      return total;
    });
    if (kafka) await timed('their events on the topics', () => seedTopics({ db, ...kafka, chunk: TOPIC_CHUNK, log }));

    await timed('messages with their streams', async () => {
      let total = 0;
      for (let from = 0; from < messagesPerApp; from += chunkPerApp) {
        const to = Math.min(messagesPerApp, from + chunkPerApp);
        await db.query(withValues(MESSAGES_SQL, [from, to, now, volume.days]));
        total += (to - from) * apps.length;
        log(`  messages: ${total.toLocaleString('en')} of ${(messagesPerApp * apps.length).toLocaleString('en')}`);
      }
      await db.query(DAILY_COUNTS_SQL);
      return total;
    });

    await timed('webhook deliveries with their attempts and events', async () => {
      await db.query(withValues(ENDPOINTS_SQL, [now]));
      const perApp = Math.floor(volume.deliveries / volume.apps);
      // The newest messages of each app, two statuses each, all inside the last 25 days.
      const messagesNeeded = Math.ceil(perApp / 2);
      let total = 0;
      for (let from = 0; from < messagesNeeded; from += chunkPerApp) {
        const to = Math.min(messagesNeeded, from + chunkPerApp);
        await db.query(withValues(DELIVERIES_SQL, [messagesPerApp - to, messagesPerApp - from, now, Math.min(25, volume.days), messagesPerApp, volume.days]));
        total += (await db.query('select count(*)::int as n from seed_statuses')).rows[0].n;
        log(`  deliveries: ${total.toLocaleString('en')} of about ${(messagesNeeded * 2 * apps.length).toLocaleString('en')}`);
      }
      return total;
    });

    if (kafka) {
      const topics = [`${kafka.namespace}chat.user-events`, `${kafka.namespace}consent.events`];
      await timed('the live consumers caught up (groups)', () => waitForConsumers({ ...kafka, topics, log }));
    }
    // A platform months old has been vacuumed: left to autovacuum, every seeded table would be vacuumed
    // (and its visibility map first set) while the benches measure.
    await timed('vacuum and analyze', async () => {
      // This session's row counts reach the statistics at most once a second: counts still pending
      // when the vacuum resets "inserted since vacuum" would land after it and undo the reset.
      await db.query('select pg_stat_force_next_flush()');
      await db.query(`vacuum (analyze) ${SEEDED_TABLES.join(', ')}`);
      return SEEDED_TABLES.length;
    });
    const named = apps.length <= 10 ? `apps (the big one first): ${apps.map((a) => a.appId).join(' ')}` : `${apps.length} apps, the big one ${apps[0].appId}`;
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s; ${named}`);
    return apps;
  } finally {
    await db.end();
  }
}

/**
 * Removes what seedVolume wrote for these apps (every row of theirs in the services' tables and event
 * stores, and their orgs' users), leaving the apps, orgs and keys the admin API made: a test that
 * seeded a shared database without the topics (`kafka: null`) gives back one whose projections match
 * the topics again. (What went on the topics stays there: a seed with topics is kept, not removed.)
 * @param {{ databaseUrl: string, appIds: string[] }} options
 */
export async function removeVolume({ databaseUrl, appIds }) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query('begin');
    const { rows } = await db.query('select distinct org_id from messaging.apps where app_id = any($1)', [appIds]);
    const orgIds = rows.map((r) => r.org_id);
    for (const statement of REMOVE_BY_APP) await db.query(statement, [appIds]);
    for (const statement of REMOVE_BY_ORG) await db.query(statement, [orgIds]);
    await db.query('commit');
  } catch (error) {
    await db.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await db.end();
  }
}

/**
 * The scripts of seed-volume.sql.mjs are several statements, which Postgres takes only without bind parameters: their
 * `$n` are replaced by literals of the tool's own numbers and times (never outside input).
 * @param {string} sql
 * @param {(number | Date)[]} values
 */
function withValues(sql, values) {
  return sql.replace(/\$(\d+)/g, (_, n) => {
    const value = values[Number(n) - 1];
    if (value instanceof Date) return `'${value.toISOString()}'`;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`seed script value $${n} is not a number or a time`);
    return String(value);
  });
}

/** A ULID-shaped body (26 characters, all valid Crockford base32): the series, then the number. */
function hexId(series, n) {
  return series.toString(16).toUpperCase().padStart(10, '0') + n.toString(16).toUpperCase().padStart(16, '0');
}

/** The services learn of a new app over Kafka: wait until each one that seeding writes beside has it. */
async function waitForProjections(db, apps) {
  const ids = apps.map((a) => a.appId);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await db.query(
      `select (select count(*) from messaging.apps where app_id = any($1))::int + (select count(*) from consent.apps where app_id = any($1))::int as n`,
      [ids],
    );
    if (rows[0].n === ids.length * 2) return;
    if (Date.now() > deadline) throw new Error(`the services did not learn of the ${ids.length} apps within a minute`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      database: { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform' },
      admin: { type: 'string', default: 'http://127.0.0.1:3001/admin/v1' },
      token: { type: 'string', default: process.env.ADMIN_TOKEN ?? 'dev-admin-token' },
      apps: { type: 'string', default: String(FULL_VOLUME.apps) },
      users: { type: 'string', default: String(FULL_VOLUME.users) },
      'big-app-users': { type: 'string', default: String(FULL_VOLUME.bigAppUsers) },
      messages: { type: 'string', default: String(FULL_VOLUME.messages) },
      deliveries: { type: 'string', default: String(FULL_VOLUME.deliveries) },
      days: { type: 'string', default: String(FULL_VOLUME.days) },
      now: { type: 'string' },
      brokers: { type: 'string', default: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092' },
      namespace: { type: 'string', default: process.env.KAFKA_NAMESPACE ?? '' },
      'skip-topics': { type: 'boolean', default: false },
      remove: { type: 'string' },
    },
  });
  const admin = async (/** @type {string} */ method, /** @type {string} */ route, /** @type {unknown} */ body) => {
    const res = await fetch(values.admin + route, {
      method,
      headers: { authorization: `Bearer ${values.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  if (values.remove) {
    await removeVolume({ databaseUrl: values.database, appIds: values.remove.split(',') });
    console.log(`removed what was seeded for ${values.remove.split(',').length} apps`);
    process.exit(0);
  }
  await seedVolume({
    databaseUrl: values.database,
    admin,
    kafka: values['skip-topics'] ? null : { brokers: values.brokers.split(','), namespace: values.namespace },
    appUserIdSecret: process.env.APP_USER_ID_SECRET,
    now: values.now ? new Date(values.now) : undefined,
    volume: {
      apps: Number(values.apps),
      users: Number(values.users),
      bigAppUsers: Number(values['big-app-users']),
      messages: Number(values.messages),
      deliveries: Number(values.deliveries),
      days: Number(values.days),
    },
  });
}
