import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  admin,
  appWithTester,
  eventually,
  expectStatus,
  queryDatabase,
  registerWebhook,
  requestsTo,
  sendMessage,
  startWebhookReceiver,
  type HttpsReceiver,
} from '#platform/testing';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../../../..');

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(2);
});
afterAll(async () => {
  await receiver?.close();
});

interface Summed {
  endpoint_id: string;
  hour: string;
  delivered: number;
  first: number;
  failed: number;
  attempts: number;
  durations: number[];
  last_error: string | null;
}

/** The app's hourly counts summed over slots, per endpoint and hour. */
async function summed(appId: string): Promise<Summed[]> {
  const rows = await queryDatabase<{
    endpoint_id: string;
    hour: Date;
    delivered: number;
    delivered_first_attempt: number;
    failed: number;
    attempts: number;
    durations: number[];
    last_error: string | null;
    last_error_at: Date | null;
  }>(`select * from webhook_dispatcher.delivery_hourly_counts where app_id = $1 order by endpoint_id, hour, last_error_at nulls first`, [appId]);
  const out = new Map<string, Summed>();
  for (const r of rows) {
    const key = `${r.endpoint_id} ${r.hour.toISOString()}`;
    const s = out.get(key) ?? {
      endpoint_id: r.endpoint_id,
      hour: r.hour.toISOString(),
      delivered: 0,
      first: 0,
      failed: 0,
      attempts: 0,
      durations: r.durations.map(() => 0),
      last_error: null,
    };
    s.delivered += r.delivered;
    s.first += r.delivered_first_attempt;
    s.failed += r.failed;
    s.attempts += r.attempts;
    r.durations.forEach((n, i) => (s.durations[i] += n));
    s.last_error = r.last_error ?? s.last_error;
    out.set(key, s);
  }
  return [...out.values()];
}

describe('webhook delivery counts per endpoint and hour', () => {
  it('counts deliveries and requests as results are recorded, and a rebuild from the records gives the same counts', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const ok = await registerWebhook(app, ['message.status'], { hostIndex: 2 });
    const refusing = await registerWebhook(app, ['message.status'], { hostIndex: 2 });
    receiver.respond((req) => (req.path === refusing.path && req.method === 'POST' ? { status: 400 } : undefined));
    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'counted' }), 202).body;
    await eventually(async () => (await admin('POST', `/sim/users/${userId}/receipts`, { messageId: sent.id, status: 'delivered' })).status === 200, 15_000);
    await receiver.waitFor(() => requestsTo(receiver, ok.path).length >= 2 && requestsTo(receiver, refusing.path).length >= 2, 20_000);

    const counted = await eventually(async () => {
      const rows = await summed(app.appId);
      const total = rows.reduce((n, r) => n + r.delivered + r.failed, 0);
      return total === 4 ? rows : null;
    }, 20_000);
    const of = (endpointId: string) => counted.filter((r) => r.endpoint_id === endpointId);
    expect(of(ok.id).reduce((n, r) => n + r.delivered + r.first + r.attempts, 0)).toBe(6);
    expect(of(refusing.id).reduce((n, r) => n + r.failed + r.attempts, 0)).toBe(4);
    expect(of(refusing.id).map((r) => r.last_error)).toContain('answered 400');

    // Rebuilt in place from the delivery records, as an operator does it: the same counts.
    const { stdout } = await run(
      process.execPath,
      [path.join(ROOT, 'tools/platformctl/commands/replay-projections.mjs'), '--service', 'webhook-dispatcher', '--quiet'],
      { env: process.env },
    );
    expect(JSON.parse(stdout)).toMatchObject({ service: 'webhook-dispatcher', rows: expect.any(Number) });
    expect(await summed(app.appId)).toEqual(counted);
  }, 90_000);
});
