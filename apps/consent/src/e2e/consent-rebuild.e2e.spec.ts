import { Kafka, logLevel } from 'kafkajs';
import { kafkaNamespace, TOPICS } from '#platform/contracts';
import { admin, api, createTestApp, createTestUser, eventually, expectStatus, queryDatabase, simAppAction, simSendText } from '#platform/testing';
import { startConsent } from '../main';

const ADMIN_DB = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const liveDbUrl = () => process.env.DATABASE_URL as string;

const query = <T>(url: string, sql: string, params: unknown[] = []) => queryDatabase<T>(sql, params, url);

/** Everything the consent service derives for these apps, in a stable order. */
async function snapshot(url: string, appIds: string[]) {
  const [consents, windows, testers, appUsers, events] = await Promise.all([
    query(url, `select * from consent.consents where app_id = any($1) order by app_id, app_user_id`, [appIds]),
    query(url, `select * from consent.reply_windows where app_id = any($1) order by app_id, app_user_id`, [appIds]),
    query(url, `select * from consent.testers where app_id = any($1) order by app_id, user_id`, [appIds]),
    query(url, `select * from consent.app_users where app_id = any($1) order by app_id, app_user_id`, [appIds]),
    query(
      url,
      `select stream_id, stream_version, event_id, type, data, occurred_at from consent.events where metadata->>'appId' = any($1) order by stream_id, stream_version`,
      [appIds],
    ),
  ]);
  return { consents, windows, testers, appUsers, events };
}

describe('rebuilding consent from chat.user-events (e2e)', () => {
  const rebuildDb = `${(process.env.DATABASE_URL ?? '').split('/').pop()}_consent_rebuild`;
  const rebuildUrl = () => liveDbUrl().replace(/\/[^/]+$/, `/${rebuildDb}`);

  beforeAll(async () => {
    await query(ADMIN_DB, `drop database if exists ${rebuildDb} with (force)`);
    await query(ADMIN_DB, `create database ${rebuildDb}`);
  });
  afterAll(async () => {
    await query(ADMIN_DB, `drop database if exists ${rebuildDb} with (force)`);
  });

  it('replaying the topic from offset 0 into a fresh consent schema gives the same consents, events and ids', async () => {
    // A mix of every kind of move, in two apps.
    const a = await createTestApp();
    const b = await createTestApp();
    const users = await Promise.all(Array.from({ length: 6 }, () => createTestUser(a.orgId)));
    await simSendText(users[0].id, a.appId);
    await simSendText(users[0].id, b.appId);
    await simSendText(users[1].id, a.appId);
    expectStatus(await simAppAction(users[1].id, a.appId, 'stop'), 200);
    await simSendText(users[2].id, a.appId);
    expectStatus(await simAppAction(users[2].id, a.appId, 'block'), 200);
    expectStatus(await simAppAction(users[2].id, a.appId, 'unblock'), 200);
    const link = expectStatus(await api('POST', '/optin-links', a.sandboxKey, { ref: 'rebuild' }), 201).body;
    expectStatus(await admin('POST', `/sim/users/${users[3].id}/optin/${link.token}/open`), 200);
    expectStatus(await admin('POST', `/sim/users/${users[3].id}/optin/${link.token}/allow`), 200);
    expectStatus(await admin('POST', `/apps/${a.appId}/testers`, { userId: users[4].id }), 201);
    expectStatus(await simAppAction(users[4].id, a.appId, 'accept-tester'), 200);
    expectStatus(await simAppAction(users[5].id, b.appId, 'allow'), 200);
    expectStatus(await admin('PATCH', `/users/${users[0].id}`, { status: 'deleted' }), 200);
    // A refused move leaves no trace in either.
    expect((await simAppAction(users[5].id, a.appId, 'stop')).status).toBe(409);

    const appIds = [a.appId, b.appId];
    const live = await snapshot(liveDbUrl(), appIds);
    expect(live.consents).toHaveLength(7);

    const kafka = new Kafka({ clientId: 'rebuild-test', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
    const kafkaAdmin = kafka.admin();
    await kafkaAdmin.connect();
    const prefix = `rebuild-${Date.now()}.`;
    const rebuild = await startConsent({ ...process.env, DATABASE_URL: `${rebuildUrl()}`, PORT: '0' }, { serve: false, consumerGroupPrefix: prefix });
    try {
      // Caught up when the rebuild's group has committed the topic's end on every partition.
      const ends = await kafkaAdmin.fetchTopicOffsets(TOPICS.chatUserEvents);
      const group = `${kafkaNamespace()}${prefix}consent.user-actions`;
      await eventually(async () => {
        const [committed] = await kafkaAdmin.fetchOffsets({ groupId: group, topics: [TOPICS.chatUserEvents] });
        return ends.every((end) => Number(committed.partitions.find((p) => p.partition === end.partition)?.offset ?? -1) >= Number(end.high));
      }, 30_000);
      expect(await snapshot(rebuildUrl(), appIds)).toEqual(live);
      // The rebuild published nothing: its relay cursors never moved past its events.
      const [{ count }] = await query<{ count: string }>(
        rebuildUrl(),
        `select count(*) from consent.events e cross join consent.relay_cursor c
          where e.shard is not null and (e.tx_id, e.position) > (c.tx_ids[e.shard + 1], c.positions[e.shard + 1])`,
      );
      expect(Number(count)).toBeGreaterThan(0);
    } finally {
      await rebuild.close();
      await kafkaAdmin.disconnect();
    }
  }, 90_000);
});
