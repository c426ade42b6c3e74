import { execFile } from 'node:child_process';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import {
  admin,
  appWithTester,
  eventually,
  expectStatus,
  platformNow,
  queryDatabase,
  registerWebhook,
  requestsTo,
  sendMessage,
  simInbox,
  startWebhookReceiver,
  unique,
  type HttpsReceiver,
} from '#platform/testing';

const CLI = path.join(__dirname, 'platformctl.mjs');
const namespace = process.env.KAFKA_NAMESPACE ?? '';
const kafka = new Kafka({ clientId: 'platformctl-test', brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','), logLevel: logLevel.NOTHING });

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as an operator would, configured from the environment like the services. */
function ctl(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: process.env.DATABASE_URL,
          KAFKA_BROKERS: process.env.KAFKA_BROKERS,
          KAFKA_NAMESPACE: namespace,
          ADMIN_URL: process.env.TEST_ADMIN_URL,
          ADMIN_TOKEN: process.env.TEST_ADMIN_TOKEN,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(3);
});
afterAll(async () => {
  await receiver?.close();
});

/** An opted-in tester, a message.status webhook on receiver 3, and one message sent, delivered and read. */
async function deliveredAndReadMessage() {
  const { app, userId, appUserId } = await appWithTester();
  const hook = await registerWebhook(app, ['message.status'], { hostIndex: 3 });
  const id = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'traced' }), 202).body.id as string;
  await eventually(async () => (await simInbox(userId, app.appId)).some((m) => m.messageId === id));
  expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'delivered' }), 200);
  expectStatus(await admin('POST', `/sim/users/${userId}/receipts`, { messageId: id, status: 'read' }), 200);
  await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 3, 15_000);
  return { app, userId, appUserId, hook, id };
}

async function topicEnd(topic: string): Promise<number> {
  const a = kafka.admin();
  await a.connect();
  try {
    return (await a.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0);
  } finally {
    await a.disconnect();
  }
}

async function committed(groupId: string, topic: string): Promise<Map<number, number>> {
  const a = kafka.admin();
  await a.connect();
  try {
    const [t] = await a.fetchOffsets({ groupId, topics: [topic] });
    return new Map(t.partitions.map((p) => [p.partition, Number(p.offset)]));
  } finally {
    await a.disconnect();
  }
}

describe('platformctl (e2e)', () => {
  const COMMANDS: [string[], string[]][] = [
    [
      ['replay', 'projections'],
      ['--service', '--from-offset', '--from-time', '--dry-run', '--page-size', '--keep-old', '--lock-timeout'],
    ],
    [
      ['replay', 'topic'],
      ['--topic', '--group', '--to-time', '--to-offset', '--dry-run', '--yes'],
    ],
    [
      ['outbox', 'redrive'],
      ['--service', '--since', '--until', '--dry-run', '--yes'],
    ],
    [
      ['webhooks', 'redeliver'],
      ['--app', '--since', '--until', '--type', '--status', '--dry-run', '--yes'],
    ],
    [
      ['trace', 'message'],
      ['<messageId>', '--json'],
    ],
    [['dev', 'org', 'create'], ['--name']],
    [
      ['dev', 'app', 'create'],
      ['--org', '--handle', '--name'],
    ],
    [
      ['dev', 'key', 'create'],
      ['--app', '--env'],
    ],
    [
      ['dev', 'user', 'create'],
      ['--org', '--email'],
    ],
    [
      ['dev', 'user', 'message'],
      ['--user', '--app', '--text'],
    ],
  ];

  it('--help of every command exits 0 and names its options; unknown commands and bad options exit 2', async () => {
    const main = await ctl('--help');
    expect(main.code).toBe(0);
    for (const [name, options] of COMMANDS) {
      expect(main.stdout).toContain(name.join(' '));
      const help = await ctl(...name, '--help');
      expect(help.code).toBe(0);
      for (const option of [...options, '--database-url', '--kafka-namespace', '--admin-url']) expect(help.stdout).toContain(option);
    }
    expect((await ctl('frobnicate', 'everything')).code).toBe(2);
    expect((await ctl('replay', 'topic', '--topic', 'messaging.events')).code).toBe(2);
    expect((await ctl('replay', 'topic', '--topic', 'a', '--group', 'b', '--to-offset', 'soon')).code).toBe(2);
    expect((await ctl('trace', 'message')).code).toBe(2);
    expect((await ctl('replay', 'projections', '--service', 'nope')).code).toBe(2);
    expect((await ctl('replay', 'projections', '--service', 'messaging', '--from-time', 'yesterday')).code).toBe(2);
    expect((await ctl('replay', 'projections', '--service', 'messaging', '--from-offset', '-1')).code).toBe(2);
    expect((await ctl('replay', 'projections', '--service', 'messaging', '--from-offset', '0', '--from-time', '2026-01-01T00:00:00Z')).code).toBe(2);
    expect((await ctl('replay', 'projections', '--service', 'messaging', '--dry-run')).code).toBe(2);
  });

  it('dev commands make an org, an app, a key and a user, and the user writes to the app', async () => {
    const org = JSON.parse((await ctl('dev', 'org', 'create', '--name', 'Ctl Org')).stdout);
    expect(org.id).toMatch(/^org_/);
    const app = JSON.parse((await ctl('dev', 'app', 'create', '--org', org.id, '--handle', unique('ctl-'), '--name', 'Ctl App')).stdout);
    expect(app).toMatchObject({ id: expect.stringMatching(/^app_/), status: 'sandbox' });
    const key = JSON.parse((await ctl('dev', 'key', 'create', '--app', app.id, '--env', 'sandbox')).stdout);
    expect(key.key).toMatch(/^qk_sb_/);
    const user = JSON.parse((await ctl('dev', 'user', 'create', '--org', org.id, '--email', `${unique('ctl')}@example.test`)).stdout);
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_/), status: 'active' });
    const sent = await ctl('dev', 'user', 'message', '--user', user.id, '--app', app.id, '--text', 'hello from the CLI');
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ id: expect.any(String), appUserId: expect.stringMatching(/^u_/) });
    // The API's refusal is a failure (1) with its code.
    const refusedKey = await ctl('dev', 'key', 'create', '--app', 'app_missing', '--env', 'sandbox');
    expect(refusedKey.code).toBe(1);
    expect(refusedKey.stderr).toContain('404');
  });

  it('trace message shows sent, delivered and read, the public events, deliveries and attempts, in time order', async () => {
    const { id, hook } = await deliveredAndReadMessage();
    // The last delivery's attempt is recorded in a batch shortly after the receiver answered.
    const rows = await eventually(async () => {
      const run = await ctl('trace', 'message', id, '--json');
      expect(run.code).toBe(0);
      const parsed = JSON.parse(run.stdout) as { time: string; service: string; kind: string; type: string; id: string }[];
      return parsed.filter((r) => r.kind === 'attempt').length >= 3 ? parsed : null;
    }, 15_000);
    const types = rows.filter((r) => r.kind === 'event' && r.service === 'messaging').map((r) => r.type);
    expect(types).toEqual(['MessageSent', 'MessageDelivered', 'MessageRead']);
    expect(rows.some((r) => r.service === 'chat-sim' && r.kind === 'event')).toBe(true);
    expect(rows.filter((r) => r.kind === 'public-event').map((r) => r.type)).toEqual(['message.status', 'message.status', 'message.status']);
    const deliveries = rows.filter((r) => r.kind === 'delivery');
    expect(deliveries).toHaveLength(3);
    const times = rows.map((r) => Date.parse(r.time));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    // Each delivery the receiver got is in the trace.
    const received = requestsTo(receiver, hook.path).map((r) => r.headers['svc-delivery-id']);
    for (const deliveryId of received) expect(deliveries.map((d) => d.id)).toContain(deliveryId);

    const text = await ctl('trace', 'message', id);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/MessageSent[\s\S]*MessageDelivered[\s\S]*MessageRead/);
    expect(text.stdout).not.toContain('MessageAccepted');
    expect((await ctl('trace', 'message', 'msg_nothing_here')).code).toBe(1);
  });

  it('replay topic refuses a group with members (3) and resets an inactive one', async () => {
    const live = await ctl('replay', 'topic', '--topic', 'messaging.events', '--group', 'webhook-dispatcher.public-events', '--to-offset', 'earliest', '--yes');
    expect(live.code).toBe(3);
    expect(live.stderr).toMatch(/member/);

    // A small group of our own that read messaging.events to its end, then stopped.
    const topic = `${namespace}messaging.events`;
    const groupId = unique('ctl-test-group-');
    const end = await topicEnd(topic);
    expect(end).toBeGreaterThan(0);
    const consumer = kafka.consumer({ groupId: `${namespace}${groupId}` });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => void (seen += 1) });
    await eventually(async () => seen >= end, 20_000);
    await eventually(async () => [...(await committed(`${namespace}${groupId}`, topic)).values()].reduce((n, o) => n + Math.max(0, o), 0) >= end, 20_000);
    await consumer.disconnect();

    const dry = await ctl('replay', 'topic', '--topic', 'messaging.events', '--group', groupId, '--to-offset', 'earliest', '--dry-run', '--json');
    expect(dry.code).toBe(0);
    const plan = JSON.parse(dry.stdout);
    expect(plan.reread).toBeGreaterThanOrEqual(end);
    expect([...(await committed(`${namespace}${groupId}`, topic)).values()].reduce((n, o) => n + Math.max(0, o), 0)).toBeGreaterThanOrEqual(end);

    // Without --yes (and no terminal to ask) nothing is applied: a usage error.
    expect((await ctl('replay', 'topic', '--topic', 'messaging.events', '--group', groupId, '--to-offset', 'earliest')).code).toBe(2);

    const applied = await ctl('replay', 'topic', '--topic', 'messaging.events', '--group', groupId, '--to-offset', 'earliest', '--yes');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('re-read');
    expect([...(await committed(`${namespace}${groupId}`, topic)).values()].every((o) => o === 0)).toBe(true);

    const byTime = await ctl(
      'replay',
      'topic',
      '--topic',
      'messaging.events',
      '--group',
      groupId,
      '--to-time',
      new Date(Date.now() + 3600_000).toISOString(),
      '--yes',
      '--json',
    );
    expect(byTime.code).toBe(0);
    expect([...(await committed(`${namespace}${groupId}`, topic)).values()].reduce((n, o) => n + o, 0)).toBe(await topicEnd(topic));
  });

  it('outbox redrive republishes messaging events since a time and nothing happens twice', async () => {
    const since = await platformNow();
    const { app, hook } = await deliveredAndReadMessage();
    const count = async () => ({
      deliveries: (await queryDatabase<{ n: number }>(`select count(*)::int as n from webhook_dispatcher.deliveries where app_id = $1`, [app.appId]))[0].n,
      publicEvents: (await queryDatabase<{ n: number }>(`select count(*)::int as n from webhook_dispatcher.public_events where app_id = $1`, [app.appId]))[0].n,
      requests: requestsTo(receiver, hook.path).length,
    });
    const before = await count();
    expect(before).toMatchObject({ deliveries: 3, requests: 3 });
    const topic = `${namespace}messaging.events`;
    const endBefore = await topicEnd(topic);

    const dry = await ctl('outbox', 'redrive', '--service', 'messaging', '--since', since.toISOString(), '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).republished).toBe(0);

    const run = await ctl('outbox', 'redrive', '--service', 'messaging', '--since', since.toISOString(), '--yes', '--json');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    // The message's MessageSent (one event per send, D3), MessageDelivered and MessageRead at least.
    expect(summary.republished).toBeGreaterThanOrEqual(3);
    expect(summary.byTopic[topic]).toBeGreaterThanOrEqual(3);

    // The relay published them again (same ids) and the dispatcher read past them.
    await eventually(async () => (await topicEnd(topic)) >= endBefore + summary.byTopic[topic], 15_000);
    const ends = await (async () => {
      const a = kafka.admin();
      await a.connect();
      try {
        return await a.fetchTopicOffsets(topic);
      } finally {
        await a.disconnect();
      }
    })();
    await eventually(async () => {
      const offsets = await committed(`${namespace}webhook-dispatcher.public-events`, topic);
      return ends.every((p) => Number(p.high) === 0 || (offsets.get(p.partition) ?? -1) >= Number(p.high));
    }, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await count()).toEqual(before);
  });

  it('webhooks redeliver replays a failed delivery with a new delivery id and the same event id', async () => {
    const since = await platformNow();
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 3 });
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 400 } : undefined));
    expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'fails first' }), 202);
    const [failed] = await eventually(async () => {
      const rows = await queryDatabase<{ delivery_id: string; event_id: string; status: string }>(
        `select delivery_id, event_id, status from webhook_dispatcher.deliveries where app_id = $1 and status = 'failed'`,
        [app.appId],
      );
      return rows.length > 0 ? rows : null;
    }, 15_000);
    receiver.respond(() => undefined);

    const dry = await ctl('webhooks', 'redeliver', '--app', app.appId, '--since', since.toISOString(), '--dry-run', '--json');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout).selected).toBe(1);

    const run = await ctl('webhooks', 'redeliver', '--app', app.appId, '--since', since.toISOString(), '--status', 'failed', '--yes', '--json');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).toMatchObject({ selected: 1, replayed: 1, skipped: 0, failed: 0 });
    const newId = summary.deliveries[0].newDeliveryId;
    expect(newId).toMatch(/^wd_/);
    expect(newId).not.toBe(failed.delivery_id);

    await receiver.waitFor(() => requestsTo(receiver, hook.path).some((r) => r.headers['svc-delivery-id'] === newId), 15_000);
    const replayed = requestsTo(receiver, hook.path).find((r) => r.headers['svc-delivery-id'] === newId)!;
    expect(JSON.parse(replayed.rawBody.toString('utf8')).id).toBe(failed.event_id);

    // The replay is now the latest delivery of that event and it was delivered: nothing failed is left.
    await eventually(
      async () => (await queryDatabase(`select 1 from webhook_dispatcher.deliveries where delivery_id = $1 and status = 'delivered'`, [newId])).length === 1,
    );
    const again = await ctl('webhooks', 'redeliver', '--app', app.appId, '--since', since.toISOString(), '--yes', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ selected: 0, replayed: 0 });
  });

  it('webhooks redeliver: --until closes the window on the events, --status delivered and all replay the latest deliveries of theirs', async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 3 });
    interface Delivery {
      delivery_id: string;
      event_id: string;
      status: string;
      created_at: Date;
    }
    const settled = (count: number) =>
      eventually(async () => {
        const rows = await queryDatabase<Delivery>(
          `select delivery_id, event_id, status, created_at from webhook_dispatcher.deliveries where app_id = $1 order by delivery_id`,
          [app.appId],
        );
        return rows.length === count && rows.every((r) => r.status !== 'pending') ? rows : null;
      }, 15_000);
    const send = async (text: string) => expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }), 202);

    // Each message makes one message.status event: a and b fail (400), c is delivered, one after the other.
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 400 } : undefined));
    await send('a fails');
    const [a] = await settled(1);
    await send('b fails');
    const [, b] = await settled(2);
    receiver.respond(() => undefined);
    await send('c is delivered');
    const [, , c] = await settled(3);
    expect([a.status, b.status, c.status]).toEqual(['failed', 'failed', 'delivered']);
    // The window [since, until) holds a's delivery only, whatever the clock did between the sends.
    const since = a.created_at.toISOString();
    const until = new Date(a.created_at.getTime() + 1).toISOString();
    expect(b.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(until));

    const picked = async (...args: string[]) => {
      const run = await ctl('webhooks', 'redeliver', '--app', app.appId, '--since', since, ...args, '--dry-run', '--json');
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout).deliveries as { deliveryId: string }[]).map((d) => d.deliveryId);
    };
    expect(await picked()).toEqual([a.delivery_id, b.delivery_id]);
    expect(await picked('--until', until)).toEqual([a.delivery_id]);
    expect(await picked('--until', until, '--status', 'all')).toEqual([a.delivery_id]);
    expect(await picked('--status', 'delivered')).toEqual([c.delivery_id]);
    expect(await picked('--status', 'all')).toEqual([a.delivery_id, b.delivery_id, c.delivery_id]);

    /** Runs the command for real and answers, per replayed delivery, the event id the receiver got under the new delivery id. */
    const redeliver = async (...args: string[]) => {
      const run = await ctl('webhooks', 'redeliver', '--app', app.appId, '--since', since, ...args, '--yes', '--json');
      expect(run.code).toBe(0);
      const summary = JSON.parse(run.stdout) as { selected: number; replayed: number; deliveries: { deliveryId: string; newDeliveryId: string }[] };
      expect(summary.replayed).toBe(summary.selected);
      const ids = summary.deliveries.map((d) => d.newDeliveryId);
      const received = await receiver.waitFor((requests) => ids.every((id) => requests.some((r) => r.headers['svc-delivery-id'] === id)), 15_000);
      const eventOf = (id: string) => JSON.parse(received.find((r) => r.headers['svc-delivery-id'] === id)!.rawBody.toString('utf8')).id as string;
      return Object.fromEntries(summary.deliveries.map((d) => [d.deliveryId, eventOf(d.newDeliveryId)]));
    };
    const eventsOf = (deliveries: Delivery[]) => Object.fromEntries(deliveries.map((d) => [d.delivery_id, d.event_id]));

    expect(await redeliver('--until', until)).toEqual(eventsOf([a]));
    const [, , , a2] = await settled(4);
    expect({ event: a2.event_id, status: a2.status }).toEqual({ event: a.event_id, status: 'delivered' });
    // a's event is in the window but its latest delivery (after --until) went through: no failed one is left there.
    expect(await picked('--until', until)).toEqual([]);
    expect(await picked('--until', until, '--status', 'delivered')).toEqual([a2.delivery_id]);

    expect(await redeliver('--status', 'delivered')).toEqual(eventsOf([c, a2]));
    const latest = (await settled(6)).slice(4);
    expect(await redeliver('--status', 'all')).toEqual(eventsOf([b, ...latest]));
    await settled(9);
    // b's event reached the receiver twice (its failed attempt and the one replay), the others once per delivery.
    const sent = requestsTo(receiver, hook.path).map((r) => JSON.parse(r.rawBody.toString('utf8')).id as string);
    expect([a, b, c].map((d) => sent.filter((id) => id === d.event_id).length)).toEqual([4, 2, 3]);
    expect(await picked('--status', 'failed')).toEqual([]);
  });
});
