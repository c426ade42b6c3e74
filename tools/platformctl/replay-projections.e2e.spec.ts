import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { ID_PREFIX, kafkaNamespace, newId } from '#platform/contracts';
import {
  admin,
  api,
  appWithTester,
  createTestApp,
  createTestUser,
  eventually,
  expectStatus,
  queryDatabase,
  sendMessage,
  simAppAction,
  simInbox,
  simSendText,
} from '#platform/testing';

const run = promisify(execFile);
const COMMAND = path.join(__dirname, 'commands/replay-projections.mjs');

/** md5 of every column of the messages given, in key order: the rebuilt rows must be byte-identical. */
async function messagesChecksum(ids: string[]): Promise<{ n: number; md5: string }> {
  const [row] = await queryDatabase<{ n: number; md5: string }>(
    `select count(*)::int as n, md5(coalesce(string_agg(m::text, '|' order by message_id), '')) as md5 from messaging.messages m where message_id = any($1)`,
    [ids],
  );
  return row;
}

/** (message, status, version) as a fold of the event store says, against the table. */
async function foldMatchesTable(appIds: string[]): Promise<{ fromEvents: string; fromTable: string; n: number }> {
  const [row] = await queryDatabase<{ from_events: string; from_table: string; n: number }>(
    `with last as (
       select distinct on (stream_id) data->>'messageId' as message_id, stream_version as version,
         case type when 'MessageAccepted' then 'accepted' when 'MessageSent' then 'sent' when 'MessageDelivered' then 'delivered'
                   when 'MessageRead' then 'read' when 'MessageFailed' then 'failed' when 'MessageReceived' then 'received' end as status
       from messaging.events where metadata->>'appId' = any($1) order by stream_id, stream_version desc)
     select (select md5(string_agg(message_id || ':' || status || ':' || version, '|' order by message_id)) from last) as from_events,
            (select md5(string_agg(message_id || ':' || status || ':' || version, '|' order by message_id)) from messaging.messages where app_id = any($1)) as from_table,
            (select count(*)::int from last) as n`,
    [appIds],
  );
  return { fromEvents: row.from_events, fromTable: row.from_table, n: row.n };
}

/**
 * Messages as sends wrote them before one event per send (D3): MessageAccepted, then MessageSent with
 * the status data alone (and the last one delivered), with their rows and counts as the projection made
 * them then. Written straight into the event store; returns their ids.
 */
async function streamsWrittenBefore(who: { app: { appId: string }; userId: string; appUserId: string }): Promise<string[]> {
  const ids = [0, 1, 2].map(() => newId(ID_PREFIX.message, Date.now()));
  await queryDatabase(
    `with sends as (
       select message_id, n, now() - make_interval(mins => (10 - n)::int) as at, n = 2 as delivered from unnest($1::text[]) with ordinality as m(message_id, n)),
     events as (
       insert into messaging.events (stream_id, stream_version, event_id, type, data, metadata, occurred_at)
       select 'message-' || message_id, v, gen_random_uuid(), (array['MessageAccepted', 'MessageSent', 'MessageDelivered'])[v],
              case v when 1 then jsonb_build_object('messageId', message_id, 'appUserId', $3::text, 'clientReference', 'before-' || n, 'userId', $4::text,
                                                    'type', 'text', 'text', 'written before ' || n, 'media', '[]'::jsonb, 'businessInitiated', n = 1)
                else jsonb_build_object('messageId', message_id, 'appUserId', $3::text, 'clientReference', 'before-' || n) end,
              jsonb_build_object('schemaVersion', 1, 'appId', $2::text, 'correlationId', null, 'causationId', null),
              at + (v - 1) * interval '1 second'
         from sends cross join generate_series(1, 3) v where v < 3 or delivered),
     counted as (
       insert into messaging.daily_counts (app_id, day, accepted) select $2::text, (at at time zone 'UTC')::date, count(*) from sends group by 2
       on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted + excluded.accepted)
     insert into messaging.messages (message_id, app_id, direction, app_user_id, user_id, type, text, media, status, client_reference, business_initiated,
                                     created_at, delivered_at, version)
     select message_id, $2::text, 'outbound', $3::text, $4::text, 'text', 'written before ' || n, '[]'::jsonb, case when delivered then 'delivered' else 'sent' end,
            'before-' || n, n = 1, at, case when delivered then at + interval '2 seconds' end, case when delivered then 3 else 2 end
       from sends`,
    [ids, who.app.appId, who.appUserId, who.userId],
  );
  return ids;
}

async function dailyCountsMatch(appIds: string[]): Promise<{ fromEvents: string; fromTable: string }> {
  const [row] = await queryDatabase<{ from_events: string; from_table: string }>(
    `select (select string_agg(app_id || ':' || day || ':' || n, '|' order by app_id, day) from (
               select metadata->>'appId' as app_id, (occurred_at at time zone 'UTC')::date as day, count(*) as n
               from messaging.events where (type = 'MessageAccepted' or (type = 'MessageSent' and stream_version = 1)) and metadata->>'appId' = any($1)
               group by 1, 2) e) as from_events,
            (select string_agg(app_id || ':' || day || ':' || accepted, '|' order by app_id, day) from messaging.daily_counts where app_id = any($1)) as from_table`,
    [appIds],
  );
  return { fromEvents: row.from_events, fromTable: row.from_table };
}

/** Messages per day by status (ADR 0218) as the events say and as the table holds them. */
async function statusCountsMatch(appIds: string[]): Promise<{ fromEvents: string; fromTable: string }> {
  const [row] = await queryDatabase<{ from_events: string; from_table: string }>(
    `select (select string_agg(concat_ws(':', app_id, day, sent, delivered, read, failed), '|' order by app_id, day) from (
               select metadata->>'appId' as app_id, (occurred_at at time zone 'UTC')::date as day,
                 count(*) filter (where type = 'MessageSent') as sent, count(*) filter (where type = 'MessageDelivered') as delivered,
                 count(*) filter (where type = 'MessageRead') as read, count(*) filter (where type = 'MessageFailed') as failed
               from messaging.events where type in ('MessageSent', 'MessageDelivered', 'MessageRead', 'MessageFailed') and metadata->>'appId' = any($1)
               group by 1, 2) e) as from_events,
            (select string_agg(concat_ws(':', app_id, day, sent, delivered, read, failed), '|' order by app_id, day)
               from messaging.message_daily_counts where app_id = any($1)) as from_table`,
    [appIds],
  );
  return { fromEvents: row.from_events, fromTable: row.from_table };
}

describe('platformctl replay projections (e2e)', () => {
  it('rebuilds messaging projections while sends continue: rows identical, counts and checksums match the event store, no send fails', async () => {
    const a = await appWithTester();
    const b = await appWithTester();
    const appIds = [a.app.appId, b.app.appId];
    const send = async (who: typeof a, text: string) => {
      const res = await sendMessage(who.app.sandboxKey, { to: { appUserId: who.appUserId }, type: 'text', text });
      return res;
    };

    // Before: messages in every status the receipts can give.
    // The users write first: their reply windows open (D7 caps business-initiated sends) and inbound rows exist.
    const before: string[] = [(await simSendText(a.userId, a.app.appId)).id, (await simSendText(b.userId, b.app.appId)).id];
    for (let i = 0; i < 30; i++) before.push(expectStatus(await send(i % 2 ? a : b, `before ${i}`), 202).body.id);
    await eventually(async () => (await simInbox(a.userId, a.app.appId)).length >= 15);
    for (const [i, id] of before.slice(2).entries()) {
      if (i % 2 === 0 || i % 3 === 0) continue;
      expectStatus(await admin('POST', `/sim/users/${a.userId}/receipts`, { messageId: id, status: i % 5 === 0 ? 'read' : 'delivered' }), 200);
    }
    // And messages whose streams were written before one event per send (D3: MessageAccepted, then MessageSent).
    const writtenBefore = await streamsWrittenBefore(a);
    expect(expectStatus(await api('GET', `/messages/${writtenBefore[0]}`, a.app.sandboxKey), 200).body.status).toBe('sent');
    before.push(...writtenBefore);
    const beforeSum = await messagesChecksum(before);
    expect(beforeSum.n).toBe(35);

    // Sends keep going from two clients while the rebuild runs (small pages: many reads, tails and a real swap).
    let stop = false;
    const failures: string[] = [];
    const during: string[] = [];
    const sender = async (who: typeof a) => {
      for (let i = 0; !stop; i++) {
        const res = await send(who, `during ${i}`);
        if (res.status === 202) during.push(res.body.id);
        else failures.push(`${res.status} ${JSON.stringify(res.body)}`);
        // Below the per-app rate limit (100/s): a 429 would say nothing about the rebuild.
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const senders = [sender(a), sender(b)];
    await eventually(async () => during.length >= 10);
    const { stdout } = await run(process.execPath, [COMMAND, '--service', 'messaging', '--page-size', '7', '--quiet'], { env: process.env });
    const report = JSON.parse(stdout.trim().split('\n').pop() as string);
    const sentWhileRebuilding = during.length;
    await eventually(async () => during.length >= sentWhileRebuilding + 10);
    stop = true;
    await Promise.all(senders);

    expect(failures).toEqual([]);
    expect(report.service).toBe('messaging');
    expect(report.events).toBeGreaterThanOrEqual(60);
    // The messages that existed before are byte-identical after the rebuild (every column).
    expect(await messagesChecksum(before)).toEqual(beforeSum);
    // Every message, including those sent during and after the swap, is in the table as the events say.
    const fold = await foldMatchesTable(appIds);
    expect(fold.n).toBe(before.length + during.length);
    expect(fold.fromTable).toBe(fold.fromEvents);
    const [{ n }] = await queryDatabase<{ n: number }>(`select count(*)::int as n from messaging.messages where app_id = any($1)`, [appIds]);
    expect(n).toBe(before.length + during.length);
    const counts = await dailyCountsMatch(appIds);
    expect(counts.fromTable).toBe(counts.fromEvents);
    const statuses = await statusCountsMatch(appIds);
    // Sent, delivered and read days of both apps, as the events say.
    expect(statuses.fromEvents.split('|').length).toBeGreaterThanOrEqual(2);
    expect(statuses.fromTable).toBe(statuses.fromEvents);
    // Reads still work on the swapped table.
    expect(expectStatus(await send(a, 'after'), 202).body.status).toBe('accepted');
  });

  /** Messaging's projections of other services' topics, and the live consumers that feed them. */
  const TOPIC_TABLES = ['apps', 'orgs', 'recipients', 'app_users', 'consents', 'testers', 'media', 'windows'];
  const TOPIC_CONSUMERS = ['apps', 'consent', 'media', 'user-events'].map((c) => `messaging.${c}`);

  /** md5 of every row of every table, leaving out rows of the given apps, orgs, users and media (the writes that continue meanwhile). */
  async function topicTablesChecksum(excluded: string[]): Promise<Record<string, { n: number; md5: string }>> {
    const out: Record<string, { n: number; md5: string }> = {};
    for (const table of TOPIC_TABLES) {
      const [row] = await queryDatabase<{ n: number; md5: string }>(
        `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as md5 from messaging.${table} t
         where not (coalesce(to_jsonb(t)->>'app_id', '') = any($1) or coalesce(to_jsonb(t)->>'org_id', '') = any($1) or coalesce(to_jsonb(t)->>'user_id', '') = any($1)
                    or coalesce(to_jsonb(t)->>'media_id', '') = any($1))`,
        [excluded],
      );
      out[table] = row;
    }
    return out;
  }

  /** Waits until the consumers have committed the end of every partition they read. */
  async function consumersIdle(consumers: string[]): Promise<void> {
    const kafka = new Kafka({ clientId: 'replay-test', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
    const kafkaAdmin = kafka.admin();
    await kafkaAdmin.connect();
    try {
      await eventually(async () => {
        for (const consumer of consumers) {
          const groupId = kafkaNamespace() + consumer;
          for (const t of await kafkaAdmin.fetchOffsets({ groupId })) {
            const ends = await kafkaAdmin.fetchTopicOffsets(t.topic);
            for (const p of t.partitions) if (Number(p.offset) < Number(ends.find((e) => e.partition === p.partition)!.high)) return false;
          }
        }
        return true;
      }, 30_000);
    } finally {
      await kafkaAdmin.disconnect();
    }
  }

  it("rebuilds messaging's projections of other services' topics from offset 0 while users keep arriving: rows unchanged, later events land in the rebuilt tables", async () => {
    // Every table gets rows of its own kinds: apps, orgs, recipients, testers, consents (one stopped), media, windows.
    const a = await appWithTester();
    await simSendText(a.userId, a.app.appId);
    const stopper = await createTestUser(a.app.orgId);
    expectStatus(await simAppAction(stopper.id, a.app.appId, 'allow'), 200);
    expectStatus(await simAppAction(stopper.id, a.app.appId, 'stop'), 200);
    const media = expectStatus(await api('POST', '/media', a.app.sandboxKey, { fileName: 'a.png', mimeType: 'image/png', size: 10 }), 201).body.media;
    await eventually(async () => (await queryDatabase(`select 1 from messaging.media where media_id = $1`, [media.id])).length === 1);
    await eventually(
      async () => (await queryDatabase(`select 1 from messaging.consents where app_id = $1 and status = 'opted_out'`, [a.app.appId])).length === 1,
    );
    await consumersIdle(TOPIC_CONSUMERS);

    // A second app keeps gaining users (recipients, testers, consents, app users, windows) during the rebuild and after its swap.
    const b = await createTestApp();
    const joined: { userId: string; appUserId: string }[] = [];
    let stop = false;
    const grow = async () => {
      while (!stop) {
        const user = await createTestUser(b.orgId);
        expectStatus(await admin('POST', `/apps/${b.appId}/testers`, { userId: user.id }), 201);
        expectStatus(await simAppAction(user.id, b.appId, 'accept-tester'), 200);
        joined.push({ userId: user.id, appUserId: (await simSendText(user.id, b.appId)).appUserId });
      }
    };
    // Other tests' uploads still pending may be verified, or rejected by the expiry sweep, at any moment.
    const pendingElsewhere = (
      await queryDatabase<{ media_id: string }>(`select media_id from messaging.media where status = 'pending_upload' and app_id <> $1`, [a.app.appId])
    ).map((row) => row.media_id);
    const background = [b.appId, b.orgId, ...pendingElsewhere];
    const before = await topicTablesChecksum(background);
    expect(before.media.n).toBeGreaterThan(0);

    // A wrong appUserId secret would put users' windows under ids nobody has: refused before anything changes.
    const wrongSecret = await run(process.execPath, [COMMAND, '--service', 'messaging', '--from-offset', '0', '--quiet'], {
      env: { ...process.env, APP_USER_ID_SECRET: 'not-the-secret' },
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(wrongSecret.code).toBe(2);
    expect(wrongSecret.stderr).toMatch(/APP_USER_ID_SECRET is not the platform's/);

    const growing = grow();
    await eventually(async () => joined.length >= 2);
    const { stdout, stderr } = await run(process.execPath, [COMMAND, '--service', 'messaging', '--from-offset', '0', '--page-size', '50', '--quiet'], {
      env: process.env,
    });
    const report = JSON.parse(stdout.trim().split('\n').pop() as string);
    // Its Kafka client is prepared as the services' are: no kafkajs idle timer loop, so no Node warning about its negative delays.
    expect(stderr).not.toMatch(/TimeoutNegativeWarning/);
    const joinedWhileRebuilding = joined.length;
    await eventually(async () => joined.length >= joinedWhileRebuilding + 2);
    stop = true;
    await growing;

    expect(report).toMatchObject({ service: 'messaging', source: 'topics', from: 'offset 0' });
    expect(report.events).toBeGreaterThan(0);
    expect(report.messages).toBeGreaterThanOrEqual(report.events);
    expect(report.partitions.length).toBeGreaterThanOrEqual(4);
    // What existed before is identical, row for row, in every rebuilt table.
    const users = (await queryDatabase<{ user_id: string }>(`select user_id from messaging.recipients where org_id = $1`, [b.orgId])).map((r) => r.user_id);
    expect(await topicTablesChecksum([...background, ...users])).toEqual(before);
    // Everything that happened during and after the swap is there too: the live consumers applied it to the rebuilt tables.
    await consumersIdle(TOPIC_CONSUMERS);
    for (const { userId, appUserId } of joined) {
      const [row] = await queryDatabase<{ recipient: boolean; tester: boolean; consent: string; window: boolean; app_user: string }>(
        `select exists (select 1 from messaging.recipients where user_id = $2) as recipient,
                exists (select 1 from messaging.testers where app_id = $1 and user_id = $2) as tester,
                (select status from messaging.consents where app_id = $1 and app_user_id = $3) as consent,
                exists (select 1 from messaging.windows where app_id = $1 and app_user_id = $3) as window,
                (select user_id from messaging.app_users where app_id = $1 and app_user_id = $3) as app_user`,
        [b.appId, userId, appUserId],
      );
      expect(row).toEqual({ recipient: true, tester: true, consent: 'opted_in', window: true, app_user: userId });
    }
    expect((await queryDatabase(`select 1 from messaging.apps where app_id = $1`, [b.appId])).length).toBe(1);
    // The send rules read the rebuilt tables.
    expect(expectStatus(await sendMessage(b.sandboxKey, { to: { appUserId: joined[0].appUserId }, type: 'text', text: 'after' }), 202).body.status).toBe(
      'accepted',
    );
    expect(expectStatus(await sendMessage(a.app.sandboxKey, { to: { appUserId: a.appUserId }, type: 'text', text: 'after' }), 202).body.status).toBe(
      'accepted',
    );
  });

  it('plans a rebuild from a time without changing anything (--dry-run): partitions start at the first message at or after it', async () => {
    const plan = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [COMMAND, '--service', 'gateway', '--dry-run', '--quiet', ...args], { env: process.env });
      return JSON.parse(stdout.trim().split('\n').pop() as string) as { messages: number; partitions: { topic: string; start: string; end: string }[] };
    };
    const all = await plan('--from-offset', '0');
    expect(all.messages).toBeGreaterThan(0);
    // Before any message: everything; after the last: nothing; an app created after a time is at or after the start.
    expect((await plan('--from-time', '2000-01-01T00:00:00Z')).messages).toBeGreaterThanOrEqual(all.messages);
    expect((await plan('--from-time', '2999-01-01T00:00:00Z')).messages).toBe(0);
    const since = new Date(Date.now() - 1000).toISOString();
    await createTestApp();
    const recent = await eventually(async () => {
      const p = await plan('--from-time', since);
      return p.messages > 0 ? p : null;
    });
    expect(recent.messages).toBeLessThan((await plan('--from-offset', '0')).messages);
    const [{ count }] = await queryDatabase<{ count: string }>(`select count(*) from pg_namespace where nspname like 'gateway_rebuild_%'`);
    expect(Number(count)).toBe(0);
  });

  it("rebuilds the gateway's app access from profile.events (its default source) with the same rows", async () => {
    const app = await createTestApp();
    expectStatus(await admin('POST', `/apps/${app.appId}/status`, { action: 'approve' }), 200);
    await eventually(
      async () => (await queryDatabase(`select 1 from gateway.app_access where app_id = $1 and status = 'internal_live'`, [app.appId])).length === 1,
    );
    const checksum = async () =>
      (
        await queryDatabase<{ n: number; md5: string }>(
          `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by app_id), '')) as md5 from gateway.app_access t`,
        )
      )[0];
    await consumersIdle(['gateway.app-access']);
    const before = await checksum();
    const { stdout } = await run(process.execPath, [COMMAND, '--service', 'gateway', '--quiet'], { env: process.env });
    const report = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(report).toMatchObject({ service: 'gateway', source: 'topics', from: 'earliest', rows: { app_access: before.n } });
    expect(await checksum()).toEqual(before);
    // The key still authenticates through the rebuilt table.
    expect((await api('GET', '/business-profile', app.sandboxKey)).status).toBe(200);
  });

  it("rebuilds consent's projections from its event store and from topics: consents, users, testers, windows and listings unchanged", async () => {
    const a = await appWithTester();
    await simSendText(a.userId, a.app.appId);
    for (const actions of [['allow'], ['allow', 'stop'], ['allow', 'block'], ['allow', 'block', 'unblock']] as const) {
      const user = await createTestUser(a.app.orgId);
      await simSendText(user.id, a.app.appId);
      for (const action of actions) expectStatus(await simAppAction(user.id, a.app.appId, action), 200);
    }
    await consumersIdle(['consent.user-actions', 'consent.apps']);
    const tables = async () => {
      const out: Record<string, unknown> = {};
      for (const [table, order] of [
        ['consents', 'app_id, app_user_id'],
        ['app_users', 'app_id, app_user_id'],
        ['testers', 'app_id, user_id'],
        ['reply_windows', 'app_id, app_user_id'],
        ['apps', 'app_id'],
      ]) {
        out[table] = (
          await queryDatabase(`select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by ${order}), '')) as md5 from consent.${table} t`)
        )[0];
      }
      // Sequence numbers are handed out again in event order; what each user's current listing row says is not.
      out.currentVersions = (
        await queryDatabase(
          `select count(*)::int as n, md5(coalesce(string_agg(concat_ws(',', app_id, app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at), '|' order by app_id, app_user_id), '')) as md5
           from consent.consent_versions where valid_to_seq is null`,
        )
      )[0];
      const listing = expectStatus(await api('GET', '/consents?limit=100', a.app.sandboxKey), 200).body.data;
      out.listing = listing;
      return out;
    };
    const before = await tables();
    expect((before.listing as unknown[]).length).toBe(5);

    const fromStore = JSON.parse(
      (await run(process.execPath, [COMMAND, '--service', 'consent', '--page-size', '3', '--quiet'], { env: process.env })).stdout
        .trim()
        .split('\n')
        .pop() as string,
    );
    expect(fromStore).toMatchObject({ service: 'consent' });
    expect(fromStore.events).toBeGreaterThan(10);
    expect(await tables()).toEqual(before);

    const fromTopics = JSON.parse(
      (await run(process.execPath, [COMMAND, '--service', 'consent', '--from-offset', '0', '--quiet'], { env: process.env })).stdout
        .trim()
        .split('\n')
        .pop() as string,
    );
    expect(fromTopics).toMatchObject({ service: 'consent', source: 'topics' });
    expect(await tables()).toEqual(before);
    // The consent service still decides on the rebuilt tables.
    const late = await createTestUser(a.app.orgId);
    expect(expectStatus(await simAppAction(late.id, a.app.appId, 'allow'), 200).body.status).toBe('opted_in');
  });
});
