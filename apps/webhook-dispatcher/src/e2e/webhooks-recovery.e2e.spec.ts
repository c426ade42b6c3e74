import { Kafka, logLevel } from 'kafkajs';
import {
  appWithTester,
  eventually,
  expectStatus,
  queryDatabase,
  registerWebhook,
  requestsTo,
  sendMessage,
  simSendText,
  spawnApp,
  stackPid,
  startWebhookReceiver,
  stopProcess,
  waitForExit,
  waitReady,
  type HttpsReceiver,
} from '#platform/testing';

const PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 50;
const namespace = process.env.KAFKA_NAMESPACE ?? '';
const GROUP = `${namespace}webhook-dispatcher.public-events`;
const TOPICS = ['messaging.events', 'consent.events', 'profile.events'].map((t) => namespace + t);

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(2);
});
afterAll(async () => {
  await receiver?.close();
});

async function deliveryRows(appId: string) {
  return queryDatabase<{ delivery_id: string; event_id: string; status: string }>(
    `select delivery_id, event_id, status from webhook_dispatcher.deliveries where app_id = $1 order by delivery_id`,
    [appId],
  );
}

/** The group's committed offsets have reached the end of every topic it reads. */
async function groupCaughtUp(kafka: Kafka): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of TOPICS) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [committed] = await admin.fetchOffsets({ groupId: GROUP, topics: [topic] });
      for (const end of ends) {
        const mine = committed.partitions.find((p) => p.partition === end.partition);
        if (Number(end.offset) > 0 && Number(mine?.offset ?? -1) < Number(end.offset)) return false;
      }
    }
    return true;
  } finally {
    await admin.disconnect();
  }
}

describe('webhook dispatcher recovery (e2e)', () => {
  it('a dispatcher killed mid-delivery loses no delivery and gives no event a second id; a group reset to offset 0 creates nothing', async () => {
    const { app, userId, appUserId } = await appWithTester();
    await simSendText(userId, app.appId);
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 2 });
    // Slow answers keep attempts in flight when the process dies.
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 200, delayMs: 400 } : undefined));

    const sent: string[] = [];
    for (let i = 0; i < 20; i++)
      sent.push(expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: `crash ${i}` }), 202).body.id);
    await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 3, 20_000);
    const pid = stackPid('webhook-dispatcher');
    process.kill(pid, 'SIGKILL');
    await waitForExit(pid);
    const replacement = spawnApp('webhook-dispatcher', PORT, { logName: 'test-webhook-dispatcher-after-crash', replaces: true });
    await waitReady(`http://127.0.0.1:${PORT}/readyz`, replacement, 90_000);

    // Every message's `sent` status is delivered; a repeat (a request cut off by the crash) has the same event id.
    const rows = (await eventually(
      async () => {
        const current = await deliveryRows(app.appId);
        return current.length === sent.length && current.every((r) => r.status === 'delivered') ? current : null;
      },
      60_000,
      250,
    ))!;
    const bodies = requestsTo(receiver, hook.path).map((r) => JSON.parse(r.rawBody.toString('utf8')));
    for (const messageId of sent) {
      const eventIds = new Set(bodies.filter((b) => b.data.id === messageId && b.data.status === 'sent').map((b) => b.id));
      expect(eventIds.size).toBe(1);
    }
    expect(new Set(rows.map((r) => r.event_id)).size).toBe(sent.length);
    receiver.respond(() => undefined);

    // SRE replay: stop the dispatcher, move its fan-out group back to offset 0, start it again.
    const requestsBefore = requestsTo(receiver, hook.path).length;
    const eventsBefore = await queryDatabase(`select event_id from webhook_dispatcher.public_events where app_id = $1 order by event_id`, [app.appId]);
    await stopProcess(replacement);
    const kafka = new Kafka({ clientId: 'test-reset', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await eventually(async () => (await admin.describeGroups([GROUP])).groups[0].state === 'Empty', 60_000, 500);
      for (const topic of TOPICS) await admin.resetOffsets({ groupId: GROUP, topic, earliest: true });
    } finally {
      await admin.disconnect();
    }
    const again = spawnApp('webhook-dispatcher', PORT, { logName: 'test-webhook-dispatcher-after-reset', replaces: true });
    await waitReady(`http://127.0.0.1:${PORT}/readyz`, again, 90_000);
    await eventually(() => groupCaughtUp(kafka), 60_000, 500);

    expect(await deliveryRows(app.appId)).toEqual(rows);
    expect(await queryDatabase(`select event_id from webhook_dispatcher.public_events where app_id = $1 order by event_id`, [app.appId])).toEqual(eventsBefore);
    expect(requestsTo(receiver, hook.path)).toHaveLength(requestsBefore);
  }, 240_000);
});
