import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { admin, appWithTester, eventually, expectStatus, platformNow, queryDatabase, sendMessage } from '#platform/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');
const namespace = process.env.KAFKA_NAMESPACE ?? '';
const kafka = new Kafka({ clientId: 'message-counts-test', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });

const countsOf = async (appId: string) =>
  queryDatabase<{ day: string; sent: number; delivered: number; read: number; failed: number }>(
    `select to_char(day, 'YYYY-MM-DD') as day, sent, delivered, read, failed from console.message_daily_counts where app_id = $1 order by day`,
    [appId],
  );

/** Until the console's message-counts group has committed past every message now on messaging.events. */
async function consoleCaughtUp(): Promise<void> {
  const a = kafka.admin();
  await a.connect();
  try {
    const topic = `${namespace}messaging.events`;
    const ends = await a.fetchTopicOffsets(topic);
    await eventually(async () => {
      const [group] = await a.fetchOffsets({ groupId: `${namespace}console.message-counts`, topics: [topic] });
      return ends.every((p) => Number(p.high) === 0 || Number(group.partitions.find((g) => g.partition === p.partition)?.offset ?? -1) >= Number(p.high));
    }, 20_000);
  } finally {
    await a.disconnect();
  }
}

describe('messages per day by status (console projection of messaging.events)', () => {
  it('counts each status once, even when the events are published again, and a rebuild from offset 0 gives the same rows', async () => {
    const since = await platformNow();
    const { app, userId, appUserId } = await appWithTester();
    const ids: string[] = [];
    for (const text of ['a', 'b']) ids.push(expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }), 202).body.id);
    await eventually(async () => (await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[0], status: 'delivered' })).status === 200, 15_000);
    expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: ids[1], status: 'read' }), 200);
    const day = since.toISOString().slice(0, 10);
    const expected = [{ day, sent: 2, delivered: 1, read: 1, failed: 0 }];
    await eventually(async () => JSON.stringify(await countsOf(app.appId)) === JSON.stringify(expected), 20_000);

    // Every messaging event since then published again (same ids): the inbox applies none twice.
    const env = { ...process.env, KAFKA_NAMESPACE: namespace };
    const redrive = await run(
      process.execPath,
      [path.join(ROOT, 'tools/platformctl/platformctl.mjs'), 'outbox', 'redrive', '--service', 'messaging', '--since', since.toISOString(), '--yes', '--json'],
      { env },
    );
    expect(JSON.parse(redrive.stdout).republished).toBeGreaterThanOrEqual(4);
    await consoleCaughtUp();
    expect(await countsOf(app.appId)).toEqual(expected);

    // Rebuilt from the topic's first offset into fresh tables and swapped in: the same rows.
    const before = await queryDatabase<{ n: number; md5: string }>(
      `select count(*)::int as n, md5(coalesce(string_agg(c::text, '|' order by app_id, day), '')) as md5 from console.message_daily_counts c`,
    );
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'console', '--quiet'], {
      env,
    });
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ service: 'console', source: 'topics', from: 'earliest' });
    expect(report.events).toBeGreaterThanOrEqual(4);
    expect(await countsOf(app.appId)).toEqual(expected);
    const after = await queryDatabase<{ n: number; md5: string }>(
      `select count(*)::int as n, md5(coalesce(string_agg(c::text, '|' order by app_id, day), '')) as md5 from console.message_daily_counts c`,
    );
    expect(after).toEqual(before);
  }, 90_000);
});
