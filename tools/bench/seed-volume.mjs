/**
 * Fills a running stack's database with what months of traffic leave behind, fast: apps created
 * through the admin API (so every service knows them, made `internal_live`), then users, consents,
 * messages and webhook deliveries written with set-based SQL straight into each service's tables and
 * event store, as the services would have written them:
 * - per user: the chat product's user (`chat_sim.users` and its `UserCreated`), messaging's recipient
 *   and app user, consent's app user and opted-in consent (`opt_in_link`) with its version row and
 *   list sequence, messaging's consent copy, and the consent stream (`AppUserIdentified`,
 *   `ConsentUpdated`); app user ids are the HMAC the services compute (`APP_USER_ID_SECRET`);
 * - per message: the row (`delivered`), its stream (`MessageAccepted`, `MessageSent`,
 *   `MessageDelivered`), the chat product's inbox row, and the day's counter;
 * - per webhook delivery (the most recent messages' `sent` and `delivered` statuses, inside the 30 days
 *   deliveries are kept): the public event, the delivery (`delivered`) and its attempt, to one
 *   endpoint per app (disabled since, so no new event is delivered to its made-up URL).
 * Times spread evenly over `days` (messages) and the last 25 days (deliveries). Not seeded: the topics
 * (a replay from offset 0 finds only what the stack itself published), the chat product's
 * relationship streams, media.
 * Usage: node tools/bench/seed-volume.mjs --database URL --admin URL [--token T --apps 100 --users 1000000
 *   --big-app-users 100000 --messages 10000000 --deliveries 5000000 --days 90 --now ISO]
 * (`--now`: the stack's clock when it is not the real one; APP_USER_ID_SECRET as the services')
 * (the first app holds --big-app-users users; the others share the rest). Prints each step's rows and rate.
 * `--remove app_1,app_2`: deletes what was seeded for those apps (removeVolume).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

/** How many rows the tool writes per statement: big enough to amortise, small enough to show progress. */
const CHUNK = 200_000;

/**
 * @typedef {{ apps: number, users: number, bigAppUsers: number, messages: number, deliveries: number, days: number }} Volume
 * @typedef {{ orgId: string, appId: string, key: string }} SeededApp
 */

/** The "months of data": 100 apps, 1 000 000 users, 10 000 000 messages, 5 000 000 deliveries. */
export const FULL_VOLUME = { apps: 100, users: 1_000_000, bigAppUsers: 100_000, messages: 10_000_000, deliveries: 5_000_000, days: 90 };

/**
 * Seeds `volume` into the stack behind `databaseUrl` and `admin` (the admin client of bench-stack).
 * Returns the apps, the first being the big one.
 * @param {{ databaseUrl: string, admin: (method: string, route: string, body?: unknown) => Promise<any>, volume: Volume,
 *   appUserIdSecret?: string, now?: Date, log?: (line: string) => void }} options
 * @returns {Promise<SeededApp[]>}
 */
export async function seedVolume({ databaseUrl, admin, volume, appUserIdSecret = 'dev-app-user-id-secret', now = new Date(), log = console.log }) {
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

    await timed('analyze', async () => {
      await db.query(
        'analyze chat_sim.users, chat_sim.events, chat_sim.inbox_messages, messaging.recipients, messaging.app_users, messaging.consents, messaging.messages, messaging.events, messaging.daily_counts, consent.app_users, consent.consents, consent.consent_versions, consent.events, webhook_dispatcher.endpoints, webhook_dispatcher.public_events, webhook_dispatcher.deliveries, webhook_dispatcher.delivery_attempts',
      );
      return 0;
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
 * seeded a shared database gives back one whose projections match the topics again.
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

/** $1: the apps' ids. */
const REMOVE_BY_APP = [
  'delete from webhook_dispatcher.delivery_attempts a using webhook_dispatcher.deliveries d where a.delivery_id = d.delivery_id and d.app_id = any($1)',
  'delete from webhook_dispatcher.deliveries where app_id = any($1)',
  'delete from webhook_dispatcher.public_events where app_id = any($1)',
  'delete from webhook_dispatcher.endpoints where app_id = any($1)',
  'delete from chat_sim.inbox_messages where app_id = any($1)',
  `delete from messaging.events e using messaging.messages m where e.stream_id = 'message-' || m.message_id and m.app_id = any($1)`,
  'delete from messaging.messages where app_id = any($1)',
  'delete from messaging.daily_counts where app_id = any($1)',
  `delete from consent.events e using consent.app_users u where e.stream_id = 'consent-' || u.app_id || ':' || u.app_user_id and u.app_id = any($1)`,
  'delete from consent.consent_versions where app_id = any($1)',
  'delete from consent.consent_list_seq where app_id = any($1)',
  'delete from consent.consents where app_id = any($1)',
  'delete from consent.app_users where app_id = any($1)',
  'delete from messaging.consents where app_id = any($1)',
  'delete from messaging.app_users where app_id = any($1)',
];
/** $1: the ids of the apps' orgs (seeding made each app its own org). */
const REMOVE_BY_ORG = [
  `delete from chat_sim.events e using chat_sim.users u where e.stream_id = 'user-' || u.user_id and u.org_id = any($1)`,
  'delete from messaging.recipients where org_id = any($1)',
  'delete from chat_sim.users where org_id = any($1)',
];

/**
 * The scripts below are several statements, which Postgres takes only without bind parameters: their
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

// seed_id(series, n): the SQL twin of hexId. message_event_id: a message's event ids, known to the
// dispatcher's public events made from them (`source_event_id`, what `trace message` follows). The
// events' metadata is what a command through the API writes.
const SEED_FUNCTIONS = `
create or replace function pg_temp.seed_id(series int, n bigint) returns text language sql immutable as
  $$ select lpad(upper(to_hex(series)), 10, '0') || lpad(upper(to_hex(n)), 16, '0') $$;
create or replace function pg_temp.message_event_id(message_id text, version int) returns uuid language sql immutable as
  $$ select md5(message_id || ':' || version)::uuid $$;
create or replace function pg_temp.seed_meta(app_id text) returns jsonb language sql volatile as
  $$ select jsonb_build_object('appId', app_id, 'causationId', 'req_' || substr(md5(random()::text), 1, 24), 'correlationId', 'req_' || substr(md5(random()::text), 1, 24), 'schemaVersion', 1) $$;
`;

const USERS_SQL = `
insert into chat_sim.users (user_id, org_id, email, display_name, status, created_at, updated_at, version)
  select u.user_id, a.org_id, lower(u.user_id) || '@volume.example.test', null, 'active', u.at, u.at, 1 from seed_users u join seed_apps a using (app_n);
insert into chat_sim.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'user-' || u.user_id, 1, gen_random_uuid(), 'UserCreated',
         jsonb_build_object('email', lower(u.user_id) || '@volume.example.test', 'orgId', a.org_id, 'status', 'active', 'userId', u.user_id, 'displayName', null),
         pg_temp.seed_meta(null) || '{"appId": null}', u.at, u.at
    from seed_users u join seed_apps a using (app_n);
insert into messaging.recipients (user_id, org_id, email, status)
  select u.user_id, a.org_id, lower(u.user_id) || '@volume.example.test', 'active' from seed_users u join seed_apps a using (app_n);
insert into messaging.app_users (app_id, app_user_id, user_id) select a.app_id, u.app_user_id, u.user_id from seed_users u join seed_apps a using (app_n);
insert into consent.app_users (app_id, app_user_id, user_id, identified_at) select a.app_id, u.app_user_id, u.user_id, u.at from seed_users u join seed_apps a using (app_n);
insert into consent.consents (app_id, app_user_id, user_id, status, source, ref, reason, opted_in_at, opted_out_at, updated_at, version)
  select a.app_id, u.app_user_id, u.user_id, 'opted_in', 'opt_in_link', 'volume', null, u.at, null, u.at, 2 from seed_users u join seed_apps a using (app_n);
insert into consent.consent_versions (app_id, seq, app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at, valid_to_seq, superseded_at)
  select a.app_id, u.n + 1, u.app_user_id, 'opted_in', 'opt_in_link', 'volume', u.at, null, u.at, null, null from seed_users u join seed_apps a using (app_n);
insert into consent.consent_list_seq (app_id, seq) select app_id, users from seed_apps
  on conflict (app_id) do update set seq = consent.consent_list_seq.seq + excluded.seq;
insert into messaging.consents (app_id, app_user_id, status, version) select a.app_id, u.app_user_id, 'opted_in', 2 from seed_users u join seed_apps a using (app_n);
insert into consent.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'consent-' || a.app_id || ':' || u.app_user_id, v, gen_random_uuid(),
         case v when 1 then 'AppUserIdentified' else 'ConsentUpdated' end,
         case v when 1 then jsonb_build_object('userId', u.user_id, 'appUserId', u.app_user_id)
           else jsonb_build_object('ref', 'volume', 'reason', null, 'source', 'opt_in_link', 'status', 'opted_in', 'userId', u.user_id, 'appUserId', u.app_user_id,
                                   'optedInAt', to_char(u.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'optedOutAt', null, 'previousStatus', null) end,
         pg_temp.seed_meta(a.app_id), u.at, u.at
    from seed_users u join seed_apps a using (app_n) cross join generate_series(1, 2) v;
`;

// $1..$2: message numbers of each app; $3 now; $4 days. Message i of an app goes to its user i mod users,
// at a time that grows with i; ids grow with it, as ULIDs do.
const MESSAGES_SQL = `
create temp table if not exists seed_messages (app_n int, i int, message_id text, app_id text, user_id text, app_user_id text, at timestamptz);
truncate seed_messages;
insert into seed_messages
  select a.app_n, i, 'msg_' || pg_temp.seed_id(1000 + a.app_n, i), a.app_id, u.user_id, u.app_user_id,
         $3::timestamptz - (($4::float8 * (1 - i::float8 / a.messages)) * interval '1 day')
    from seed_apps a cross join generate_series($1::int, $2::int - 1) i join seed_users u on u.app_n = a.app_n and u.n = i % a.users;
insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated, failure_reason, created_at, delivered_at, version)
  select message_id, app_id, 'outbound', app_user_id, user_id, 'text', 'volume message ' || i, '[]', 'delivered', 'v-' || i, false, null, at, at + interval '1 second', 3
    from seed_messages;
insert into messaging.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at, recorded_at)
  select 'message-' || message_id, v, pg_temp.message_event_id(message_id, v), (array['MessageAccepted', 'MessageSent', 'MessageDelivered'])[v],
         case v when 1 then jsonb_build_object('text', 'volume message ' || i, 'type', 'text', 'media', '[]'::jsonb, 'userId', user_id, 'appUserId', app_user_id,
                                               'messageId', message_id, 'clientReference', 'v-' || i, 'businessInitiated', false)
           else jsonb_build_object('appUserId', app_user_id, 'messageId', message_id, 'clientReference', 'v-' || i) end,
         pg_temp.seed_meta(app_id), at + (v - 1) * interval '500 milliseconds', at + (v - 1) * interval '500 milliseconds'
    from seed_messages cross join generate_series(1, 3) v;
insert into chat_sim.inbox_messages (message_id, user_id, app_id, type, text, media, received_at)
  select message_id, user_id, app_id, 'text', 'volume message ' || i, '[]', at + interval '1 second' from seed_messages;
`;

const DAILY_COUNTS_SQL = `
insert into messaging.daily_counts (app_id, day, accepted)
  select app_id, (created_at at time zone 'UTC')::date, count(*) from messaging.messages where text like 'volume message %' group by 1, 2
  on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted + excluded.accepted;
`;

const ENDPOINTS_SQL = `
insert into webhook_dispatcher.endpoints (endpoint_id, app_id, url, events, state, created_at, updated_at, verified_at, disabled_at, last_verification_error, version)
  select endpoint_id, app_id, 'https://hooks.volume.example.test/' || app_n, '{message.status}', 'disabled',
         $1::timestamptz - interval '90 days', $1::timestamptz, $1::timestamptz - interval '90 days', $1::timestamptz, null, 2
    from seed_apps;
`;

// $1..$2: message numbers (the newest ones); $3 now; $4 days of deliveries; $5 messages per app; $6 days of messages.
// Each message's sent and delivered statuses, as the dispatcher stores and delivers them.
const DELIVERIES_SQL = `
create temp table if not exists seed_statuses (app_n int, app_id text, endpoint_id text, event_id text, delivery_id text, source_event_id text, payload text, at timestamptz);
truncate seed_statuses;
insert into seed_statuses
  select a.app_n, a.app_id, a.endpoint_id, 'evt_' || pg_temp.seed_id(2000 + a.app_n * 2 + s.k, i), 'wd_' || pg_temp.seed_id(4000 + a.app_n * 2 + s.k, i),
         pg_temp.message_event_id('msg_' || pg_temp.seed_id(1000 + a.app_n, i), 2 + s.k)::text,
         jsonb_build_object('id', 'evt_' || pg_temp.seed_id(2000 + a.app_n * 2 + s.k, i), 'type', 'message.status', 'apiVersion', '2026-10-01',
                            'created', extract(epoch from t.at)::bigint, 'appId', a.app_id,
                            'data', jsonb_build_object('id', 'msg_' || pg_temp.seed_id(1000 + a.app_n, i), 'appUserId', u.app_user_id, 'status', s.status,
                                                       'timestamp', to_char(t.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'clientReference', 'v-' || i))::text,
         t.at
    from seed_apps a cross join generate_series($1::int, $2::int - 1) i
    join seed_users u on u.app_n = a.app_n and u.n = i % a.users
    cross join (values (0, 'sent'), (1, 'delivered')) as s(k, status)
    cross join lateral (select $3::timestamptz - (($6::float8 * (1 - i::float8 / $5)) * interval '1 day') + (s.k + 1) * interval '500 milliseconds' as at) t
   where t.at > $3::timestamptz - $4 * interval '1 day';
insert into webhook_dispatcher.public_events (event_id, app_id, type, payload, requires_media, source_event_id, created_at)
  select event_id, app_id, 'message.status', case when at > $3::timestamptz - interval '7 days' then payload end, '{}', source_event_id, at from seed_statuses;
insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at,
                                           last_attempt_at, last_response_status, delivered_at)
  select delivery_id, app_id, endpoint_id, event_id, 'message.status', 'delivered', 1, at, null, at + interval '50 milliseconds', 200, at + interval '80 milliseconds'
    from seed_statuses;
insert into webhook_dispatcher.delivery_attempts (delivery_id, attempt, started_at, finished_at, outcome, response_status, error, duration_ms)
  select delivery_id, 1, at + interval '50 milliseconds', at + interval '80 milliseconds', 'delivered', 200, null, 30 from seed_statuses;
`;

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
