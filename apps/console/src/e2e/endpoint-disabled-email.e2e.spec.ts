import { Kafka, logLevel } from 'kafkajs';
import {
  admin,
  advanceClock,
  api,
  eventually,
  expectStatus,
  healthOrigin,
  queryDatabase,
  registerWebhook,
  requestsTo,
  spawnApp,
  stackPid,
  startWebhookReceiver,
  stopProcess,
  unique,
  waitForExit,
  waitReady,
  type HttpsReceiver,
  type TestApp,
} from '#platform/testing';

/**
 * D25 through the whole platform: the dispatcher disables an endpoint after 3 days of failure, the
 * console emails the app's owner once, and a reset of the console's consumer group to offset 0
 * (an SRE replaying webhooks.events) mails nobody again.
 */
const PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 2;
const namespace = process.env.KAFKA_NAMESPACE ?? '';
const GROUP = `${namespace}console.endpoint-alerts`;
const TOPIC = `${namespace}webhooks.events`;

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(3);
});
afterAll(async () => {
  await receiver?.close();
});

/** A sandbox app whose creator (its first owner) is `owner`. */
async function appOwnedBy(owner: string): Promise<TestApp> {
  const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
  const app = expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName: 'Widgets', creatorEmail: owner }), 201).body;
  const key = expectStatus(await admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' }), 201).body;
  return { orgId: org.id, appId: app.id, sandboxKey: key.key, sandboxKeyId: key.id };
}

const mailTo = async (address: string) => expectStatus(await admin('GET', `/mail?to=${encodeURIComponent(address)}`), 200).body.data;

/** The group's committed offsets have reached the end of webhooks.events. */
async function groupCaughtUp(kafka: Kafka): Promise<boolean> {
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  try {
    const ends = await kafkaAdmin.fetchTopicOffsets(TOPIC);
    const [committed] = await kafkaAdmin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
    return ends.every(
      (end) => Number(end.offset) === 0 || Number(committed.partitions.find((p) => p.partition === end.partition)?.offset ?? -1) >= Number(end.offset),
    );
  } finally {
    await kafkaAdmin.disconnect();
  }
}

describe('console: the email when an endpoint is disabled (e2e)', () => {
  it("emails the app's owner exactly once, also after the console's consumer group is reset to offset 0", async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const app = await appOwnedBy(owner);
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 3 });
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 500 } : undefined));
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 1, 15_000);
    // The jump makes the retry due; it fails 3 days after the first failure, which disables the endpoint.
    await advanceClock(3 * 24 * 3600 + 60);
    await eventually(async () => expectStatus(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 200).body.state === 'disabled');

    const [email, ...more] = await eventually(async () => {
      const caught = await mailTo(owner);
      return caught.length > 0 ? caught : null;
    }, 20_000);
    expect(more).toEqual([]);
    expect(email).toMatchObject({ to: [owner], subject: `Webhook endpoint disabled: ${hook.url}` });
    for (const part of [hook.url, hook.id, 'answered 500', `/apps/${app.appId}/webhooks`, `POST /platform/v1/webhooks/${hook.id}/verify`]) {
      expect(email.text).toContain(part);
      expect(email.html).toContain(part);
    }

    // SRE replay: stop the console, move its endpoint-alerts group back to offset 0, start it again.
    const pid = stackPid('console');
    process.kill(pid, 'SIGTERM');
    await waitForExit(pid, 30_000);
    const kafka = new Kafka({
      clientId: 'test-console-reset',
      brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      logLevel: logLevel.NOTHING,
    });
    const kafkaAdmin = kafka.admin();
    await kafkaAdmin.connect();
    try {
      await eventually(async () => (await kafkaAdmin.describeGroups([GROUP])).groups[0].state === 'Empty', 60_000, 500);
      await kafkaAdmin.resetOffsets({ groupId: GROUP, topic: TOPIC, earliest: true });
    } finally {
      await kafkaAdmin.disconnect();
    }
    const again = spawnApp('console', PORT, { logName: 'test-console-after-reset', replaces: true });
    try {
      await waitReady(`${healthOrigin('console', PORT)}/readyz`, again, 90_000);
      await eventually(() => groupCaughtUp(kafka), 60_000, 500);
      expect(await mailTo(owner)).toEqual([email]);
      const queued = await queryDatabase(`select message_id, sent_at from console.mail_outbox where to_addresses ? $1`, [owner]);
      expect(queued).toEqual([{ message_id: expect.any(String), sent_at: expect.any(Date) }]);
    } catch (error) {
      await stopProcess(again);
      throw error;
    }
  }, 240_000);
});
