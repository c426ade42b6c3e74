/**
 * A platform with months of data must not read it by scanning: on a database filled by
 * tools/bench/seed-volume.mjs (a small volume, but tens of thousands of rows in every table that grows
 * with traffic, enough for the planner to choose as it does at full volume), the reads the volume
 * benches scan none of those tables, sequentially or along an index (`pg_stat_user_tables`): consent pages
 * deep into the big app and by status, delivery pages, a message, a user, sends to seeded users, and
 * `platformctl trace message` on an old message.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { admin, api, eventually, expectStatus, platformNow, queryDatabase, unique } from '#platform/testing';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../..');

/**
 * The tables that grow with traffic, where a scan costs more every month, and how many of their rows
 * the reads below may touch: what they ask for (150 consent pages and 50 delivery pages of 100) and
 * room for the stack's own background work. A full scan, sequential or along an unrelated index
 * (a filter over the primary key's order reads every row too), reads the whole seeded table.
 */
const GROWING_TABLES: Record<string, number> = {
  'messaging.messages': 1_000,
  'messaging.events': 1_000,
  'messaging.app_users': 1_000,
  'messaging.consents': 1_000,
  'messaging.recipients': 1_000,
  'consent.consents': 1_000,
  'consent.consent_versions': 15_100 + 1_000,
  'consent.events': 1_000,
  'consent.app_users': 1_000,
  'webhook_dispatcher.deliveries': 5_000 + 1_000,
  'webhook_dispatcher.delivery_attempts': 1_000,
  'webhook_dispatcher.public_events': 1_000,
  'chat_sim.inbox_messages': 1_000,
  'chat_sim.events': 1_000,
  'chat_sim.users': 1_000,
};
const TABLES = Object.keys(GROWING_TABLES);

function run(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [path.join(ROOT, script), ...args],
      { env: { ...process.env }, timeout: 180_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${script}: ${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/** Seeds the test stack through the tool: a volume (`apps`, `users`, ...), then any further options. */
function seed(volume: Record<string, number>, now: Date, ...options: string[]): Promise<string> {
  const stack = ['--database', process.env.DATABASE_URL!, '--admin', process.env.TEST_ADMIN_URL!, '--token', process.env.TEST_ADMIN_TOKEN!];
  const sizes = Object.entries(volume).flatMap(([name, n]) => [`--${name.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}`, String(n)]);
  return run('tools/bench/seed-volume.mjs', [...stack, ...sizes, '--now', now.toISOString(), ...options]);
}

type Counters = Map<string, { seq: number; idx: number; rows: number }>;

/** Per table: sequential scans, index scans, and rows read by either. */
async function counters(): Promise<Counters> {
  const rows = await queryDatabase<{ name: string; seq: number; idx: number; rows: number }>(
    `select schemaname || '.' || relname as name, seq_scan::int as seq, coalesce(idx_scan, 0)::int as idx,
            (seq_tup_read + coalesce(idx_tup_fetch, 0))::int as rows
       from pg_stat_user_tables where schemaname || '.' || relname = any($1)`,
    [TABLES],
  );
  return new Map(rows.map((r) => [r.name, { seq: r.seq, idx: r.idx, rows: r.rows }]));
}

const seqScans = (c: Counters) => TABLES.map((t) => `${t}=${c.get(t)?.seq}`).join(' ');

/**
 * Postgres publishes a backend's table counters when it goes idle, at most once a second, and an idle
 * backend's last ones within 10 s (PGSTAT_IDLE_INTERVAL): sequential scan counts unchanged for 11 s
 * include everything done before. (Rows read never stand still: the dispatcher's claim loop reads the
 * few deliveries other tests left retrying.)
 */
async function settledCounters(): Promise<Counters> {
  let last = await counters();
  let since = Date.now();
  return eventually(
    async () => {
      const now = await counters();
      if (seqScans(now) !== seqScans(last)) {
        last = now;
        since = Date.now();
        return null;
      }
      return Date.now() - since >= 11_000 ? now : null;
    },
    90_000,
    1_000,
  );
}

describe('tools/bench/seed-volume: months of data, read without sequential scans', () => {
  let seededApps: string[] = [];
  // The first test's rows are in the projections but not on the topics (--skip-topics): a later test
  // that rebuilds from the topics must find the projections as the topics say.
  afterAll(async () => {
    if (seededApps.length > 0) await run('tools/bench/seed-volume.mjs', ['--database', process.env.DATABASE_URL!, '--remove', seededApps.join(',')]);
  });

  it('seeds a volume, then deep pages, lookups, sends and a trace scan no growing table sequentially', async () => {
    const now = await platformNow();
    const out = await seed({ apps: 3, users: 30_000, bigAppUsers: 20_000, messages: 60_000, deliveries: 30_000 }, now, '--skip-topics');
    const appIds = /apps \(the big one first\): (.+)$/m.exec(out)![1].split(' ');
    seededApps = appIds;
    expect(appIds).toHaveLength(3);
    const [big] = appIds;
    // What the tool wrote, as the services see it.
    const [seeded] = await queryDatabase<{ consents: number; messages: number; deliveries: number }>(
      `select (select count(*) from consent.consents where app_id = $1)::int as consents,
              (select count(*) from messaging.messages where app_id = any($2))::int as messages,
              (select count(*) from webhook_dispatcher.deliveries where app_id = any($2))::int as deliveries`,
      [big, appIds],
    );
    expect(seeded).toEqual({ consents: 20000, messages: 60000, deliveries: 30000 });
    // Vacuumed by the seed, as a platform months old has been: autovacuum has nothing to catch up on
    // (1 000 inserts is its threshold) while the reads run.
    const unvacuumed = await eventually(async () => {
      const rows = await queryDatabase<{ name: string; inserted: number }>(
        `select schemaname || '.' || relname as name, n_ins_since_vacuum::int as inserted from pg_stat_user_tables
          where schemaname || '.' || relname = any($1) and (last_vacuum is null or n_ins_since_vacuum > 1000)`,
        [TABLES],
      );
      return rows.length === 0 ? rows : null;
    }, 10_000).catch(async () =>
      queryDatabase(
        `select schemaname || '.' || relname as name, last_vacuum, n_ins_since_vacuum::int as inserted from pg_stat_user_tables where schemaname || '.' || relname = any($1)`,
        [TABLES],
      ),
    );
    expect(unvacuumed).toEqual([]);
    const key = expectStatus(await admin('POST', `/apps/${big}/keys`, { environment: 'live' }), 201).body.key as string;
    // The oldest message and two users of the big app, found through their primary keys.
    const [oldest] = await queryDatabase<{ message_id: string }>(
      `select message_id from messaging.messages where app_id = $1 and message_id < 'msg_1' order by message_id limit 1`,
      [big],
    );
    const users = await queryDatabase<{ app_user_id: string }>(`select app_user_id from consent.consents where app_id = $1 order by app_user_id limit 2`, [
      big,
    ]);

    const before = await settledCounters();

    let cursor: string | null = null;
    for (let page = 0; page < 150; page++) {
      const res: { body: { data: unknown[]; nextCursor: string | null } } = expectStatus(
        await api('GET', `/consents?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key),
        200,
      );
      expect(res.body.data).toHaveLength(100);
      cursor = res.body.nextCursor;
    }
    expectStatus(await api('GET', '/consents?limit=100&status=opted_in', key), 200);
    cursor = null;
    for (let page = 0; page < 50; page++) {
      const res: { body: { data: unknown[]; nextCursor: string | null } } = expectStatus(
        await api('GET', `/webhook-deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key),
        200,
      );
      expect(res.body.data.length).toBeGreaterThan(0);
      cursor = res.body.nextCursor;
    }
    expect(expectStatus(await api('GET', `/messages/${oldest.message_id}`, key), 200).body.status).toBe('delivered');
    expectStatus(await api('GET', `/users/${users[0].app_user_id}`, key), 200);
    for (const user of users)
      expectStatus(
        await api('POST', '/messages', key, { to: { appUserId: user.app_user_id }, type: 'text', text: 'back again' }, { 'idempotency-key': unique('vol-') }),
        202,
      );
    const trace = await run('tools/platformctl/platformctl.mjs', ['trace', 'message', oldest.message_id, '--json']);
    const rows = JSON.parse(trace) as { kind: string; type: string }[];
    expect(rows.filter((r) => r.kind === 'event').map((r) => r.type)).toEqual(['MessageAccepted', 'MessageSent', 'MessageDelivered']);

    const after = await settledCounters();
    const scanned = TABLES.filter((t) => after.get(t)!.seq > before.get(t)!.seq).map((t) => `${t} (${after.get(t)!.seq - before.get(t)!.seq})`);
    const overRead = TABLES.filter((t) => after.get(t)!.rows - before.get(t)!.rows > GROWING_TABLES[t]).map(
      (t) => `${t} (${after.get(t)!.rows - before.get(t)!.rows} rows)`,
    );
    expect({ scanned, overRead }).toEqual({ scanned: [], overRead: [] });
    // The reads did reach the tables, through their indexes.
    for (const table of ['consent.consent_versions', 'webhook_dispatcher.deliveries', 'messaging.messages'])
      expect(after.get(table)!.idx).toBeGreaterThan(before.get(table)!.idx);

    // What was seeded goes again, the apps themselves stay.
    await run('tools/bench/seed-volume.mjs', ['--database', process.env.DATABASE_URL!, '--remove', appIds.join(',')]);
    seededApps = [];
    const [left] = await queryDatabase<Record<string, number>>(
      `select (select count(*) from consent.consents where app_id = any($1))::int as consents,
              (select count(*) from consent.events where metadata->>'appId' = any($1) and type = 'ConsentUpdated')::int as consent_events,
              (select count(*) from messaging.messages where app_id = any($1))::int as messages,
              (select count(*) from webhook_dispatcher.deliveries where app_id = any($1))::int as deliveries,
              (select count(*) from messaging.recipients r join messaging.apps a on a.org_id = r.org_id where a.app_id = any($1))::int as recipients,
              (select count(*) from messaging.apps where app_id = any($1))::int as apps`,
      [appIds],
    );
    expect(left).toEqual({ consents: 0, consent_events: 0, messages: 0, deliveries: 0, recipients: 0, apps: 3 });
  });

  it("puts the seeded users' events on the topics: messaging's projections rebuilt from offset 0 keep every seeded user", async () => {
    // Small, and kept afterwards: once on the topics, the seeded users are what a replay finds.
    const out = await seed({ apps: 2, users: 400, bigAppUsers: 300, messages: 0, deliveries: 0 }, await platformNow());
    expect(out).toMatch(/their events on the topics: 1,200 rows/);
    const appIds = /apps \(the big one first\): (.+)$/m.exec(out)![1].split(' ');
    const audience = () =>
      queryDatabase<{ recipients: string; app_users: string; consents: string; n: number }>(
        `select (select md5(string_agg(r::text, '|' order by r.user_id)) from messaging.recipients r join messaging.apps a on a.org_id = r.org_id where a.app_id = any($1)) as recipients,
                (select md5(string_agg(u::text, '|' order by u.app_id, u.app_user_id)) from messaging.app_users u where u.app_id = any($1)) as app_users,
                (select md5(string_agg(c::text, '|' order by c.app_id, c.app_user_id)) from messaging.consents c where c.app_id = any($1)) as consents,
                (select count(*) from messaging.consents c where c.app_id = any($1))::int as n`,
        [appIds],
      );
    const [before] = await audience();
    expect(before.n).toBe(400);
    const replay = await run('tools/platformctl/commands/replay-projections.mjs', ['--service', 'messaging', '--from-offset', '0', '--quiet']);
    expect(JSON.parse(replay.trim().split('\n').pop()!)).toMatchObject({ service: 'messaging', source: 'topics' });
    expect((await audience())[0]).toEqual(before);
  });
});
