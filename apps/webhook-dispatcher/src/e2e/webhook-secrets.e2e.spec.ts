import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { rpcReplyTopic, rpcTopic, TOPICS } from '#platform/contracts';
import {
  api,
  createTestApp,
  expectStatus,
  publicUrl,
  queryDatabase,
  registerWebhook,
  requestsTo,
  startWebhookReceiver,
  TEST_WEBHOOK_HOSTS,
  testLogDir,
  unique,
  verifiedSecrets,
  type HttpsReceiver,
} from '#platform/testing';

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(0);
});
afterAll(async () => {
  await receiver?.close();
});

/** The `session` event of GET /listen: the listen signing secret of the key. */
async function listenSecret(key: string): Promise<string> {
  const controller = new AbortController();
  const res = await fetch(`${publicUrl()}/listen`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  let text = '';
  try {
    while (!/event: session\ndata: .*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
  } finally {
    controller.abort();
  }
  return JSON.parse(/event: session\ndata: (.*)\n/.exec(text)![1]).secret;
}

/** Every record (value and headers, as text) on the topics, from the beginning to their current end. */
async function topicContents(topics: string[]): Promise<string[]> {
  const kafka = new Kafka({ clientId: 'test-secrets-scan', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const remaining = new Map<string, number>();
  for (const topic of topics) {
    for (const p of await admin.fetchTopicOffsets(topic)) if (Number(p.high) > Number(p.low)) remaining.set(`${topic}:${p.partition}`, Number(p.high) - 1);
  }
  await admin.disconnect();
  const records: string[] = [];
  if (remaining.size === 0) return records;
  const consumer = kafka.consumer({ groupId: unique('test-secrets-scan-') });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`topics not read to their end: ${[...remaining.keys()].join(', ')}`)), 30_000);
      void consumer.run({
        eachMessage: async ({ topic, partition, message }) => {
          records.push(
            `${message.value?.toString('utf8') ?? ''} ${JSON.stringify(Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)])))}`,
          );
          const key = `${topic}:${partition}`;
          if (remaining.has(key) && Number(message.offset) >= remaining.get(key)!) remaining.delete(key);
          if (remaining.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

describe('webhook secrets kept as secrets (e2e)', () => {
  const created: string[] = [];
  let endpointId = '';
  let latestSecret = '';
  let previousSecret = '';
  let hookPath = '';

  beforeAll(async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status'], { verifyToken: unique('first-token-') });
    expect(hook.state).toBe('enabled');
    endpointId = hook.id;
    created.push(hook.secret, hook.verifyToken);
    // A new url with a new verify token, then a verify with it, then a rotation.
    hookPath = `/${unique('moved-')}`;
    const secondToken = unique('second-token-');
    expectStatus(
      await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { url: `https://${TEST_WEBHOOK_HOSTS[0]}${hookPath}`, verifyToken: secondToken }),
      200,
    );
    expectStatus(await api('POST', `/webhooks/${hook.id}/verify`, app.sandboxKey, { verifyToken: secondToken }), 200);
    const rotated = expectStatus(await api('POST', `/webhooks/${hook.id}/rotate-secret`, app.sandboxKey), 200);
    created.push(secondToken, rotated.body.secret);
    previousSecret = hook.secret;
    latestSecret = rotated.body.secret;
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    created.push(await listenSecret(app.sandboxKey));
    expect(created.every((value) => typeof value === 'string' && value.length >= 16)).toBe(true);
  });

  it('stores signing secrets and verify tokens sealed (AES-256-GCM, key id first), and still signs with them', async () => {
    const [row] = await queryDatabase<Record<string, string>>(
      'select verify_token, secret, previous_secret from webhook_dispatcher.endpoint_credentials where endpoint_id = $1',
      [endpointId],
    );
    for (const value of Object.values(row)) expect(value).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+\.[\w-]+$/);
    const stored = JSON.stringify(row);
    for (const secret of created) expect(stored).not.toContain(secret);
    await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= 1, 15_000);
    const [delivery] = requestsTo(receiver, hookPath);
    expect(verifiedSecrets(String(delivery.headers['svc-signature']), delivery.rawBody, [latestSecret, previousSecret]).matched).toEqual([
      latestSecret,
      previousSecret,
    ]);
  });

  it('never carries a secret or a verify token in plaintext on Kafka (RPC requests, replies, webhooks.events)', async () => {
    const records = await topicContents([rpcTopic('webhooks'), rpcReplyTopic('webhooks'), TOPICS.webhooksEvents]);
    expect(records.some((r) => r.includes(endpointId))).toBe(true);
    const leaks = created.filter((secret) => records.some((r) => r.includes(secret)));
    expect(leaks).toEqual([]);
  });

  it('writes no secret or verify token to any app log of the stack', async () => {
    const dir = testLogDir();
    const logs = readdirSync(dir)
      .filter((name) => /^test-.*\.log$/.test(name))
      .map((name) => readFileSync(path.join(dir, name), 'utf8'));
    expect(logs.length).toBeGreaterThanOrEqual(7);
    const leaks = created.filter((secret) => logs.some((text) => text.includes(secret)));
    expect(leaks).toEqual([]);
  });
});
