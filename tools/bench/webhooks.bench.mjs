/**
 * Webhooks, two figures:
 * 1. Delivery throughput: a backlog of deliveries (N public events × 5 endpoints) is written into the
 *    dispatcher's tables at once, then drained to a local HTTPS receiver: claim, sign, POST over
 *    kept-alive TLS connections, record. The backlog is seeded directly so the figure is the
 *    dispatcher's, not the rate at which the rest of the platform can produce events.
 * 2. End to end: POST /messages at a steady rate (default 100/s) until the message.status `sent`
 *    webhook arrives at the receiver; p50/p99 of that latency.
 * Each figure comes with the machine (loop score, busy and stolen shares) and the cores each process
 * group used while it was measured, as in the other benches: runs of one sitting compare by them.
 * Usage: npm run bench:webhooks [-- --events 4000 --rate 100 --seconds 20]
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { atEvenPace, benchEnv, BENCH_BASE_PORT, seedApp, watchMachine, withBenchStack, seedPublicEvents } from './bench-stack.mjs';
import { percentile } from './latency.mjs';
import { seedRecipients } from './seed-recipients.mjs';

const { values } = parseArgs({
  options: { events: { type: 'string', default: '4000' }, rate: { type: 'string', default: '100' }, seconds: { type: 'string', default: '20' } },
});
const require = createRequire(import.meta.url);
const { HttpsReceiver } = require(path.join(ROOT, 'dist/libs/testing/src/https-receiver.js'));
const { testCertificates } = require(path.join(ROOT, 'dist/libs/testing/src/test-certificates.js'));

const RECEIVER_PORT = BENCH_BASE_PORT + 71;
const certs = testCertificates(path.join(ROOT, '.data/test-certs'));
Object.assign(benchEnv, { WEBHOOK_DEV_HOSTS: `hooks.local.test=127.0.0.1:${RECEIVER_PORT}`, WEBHOOK_CA_FILE: certs.caFile });
const receiver = await HttpsReceiver.start({ port: RECEIVER_PORT, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });

try {
  await withBenchStack(async ({ publicUrl, admin }) => {
    /** @type {(method: string, route: string, key: string, body?: unknown, headers?: Record<string, string>) => Promise<any>} */
    const api = async (method, route, key, body, headers = {}) => {
      const res = await fetch(publicUrl + route, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
      return res.status === 204 ? null : res.json();
    };
    const { orgId, appId, key } = await seedApp(admin, 'Hooks');
    await admin('PATCH', `/apps/${appId}`, { dailyQuota: 100_000_000 });
    /** @type {{ id: string }[]} */
    const endpoints = [];
    for (let i = 0; i < 5; i++) {
      endpoints.push(
        await api('POST', '/webhooks', key, { url: `https://hooks.local.test/bench-${i}`, verifyToken: 'bench-verify-token', events: ['message.status'] }),
      );
    }

    // 1. Throughput: seed the backlog in one transaction, then time the drain.
    const events = Number(values.events);
    const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
    await db.connect();
    const now = new Date();
    await db.query('begin');
    await seedPublicEvents(db, { appId, tag: 'BENCH', count: events, now });
    await db.query(
      `insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at)
       select 'wd_BENCH' || lpad((e.i * 10 + x.n)::text, 22, '0'), $1, x.endpoint_id, 'evt_BENCH' || lpad(e.i::text, 21, '0'), 'message.status', 'pending', 0, $2, $2
       from generate_series(1, $3::int) as e(i) cross join unnest($4::text[]) with ordinality as x(endpoint_id, n)`,
      [appId, now, events, endpoints.map((e) => e.id)],
    );
    const receivedBefore = receiver.requests.length;
    const tlsBefore = receiver.tlsConnections;
    const drainWatched = watchMachine();
    const started = performance.now();
    await db.query('commit');
    await db.query(`select pg_notify('webhook_dispatcher_deliveries', '')`);
    const total = events * endpoints.length;
    for (;;) {
      const { rows } = await db.query(`select count(*)::int as n from webhook_dispatcher.deliveries where app_id = $1 and status = 'pending'`, [appId]);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const drainMachine = drainWatched();
    const { rows: outcome } = await db.query(`select status, count(*)::int as n from webhook_dispatcher.deliveries where app_id = $1 group by status`, [appId]);
    console.log(
      JSON.stringify(
        {
          bench: 'webhook deliveries (backlog drain)',
          deliveries: total,
          seconds: Number(seconds.toFixed(2)),
          deliveriesPerSecond: Math.round(total / seconds),
          requestsReceived: receiver.requests.length - receivedBefore,
          tlsConnectionsOpened: receiver.tlsConnections - tlsBefore,
          statuses: Object.fromEntries(outcome.map((r) => [r.status, r.n])),
          ...drainMachine,
        },
        null,
        2,
      ),
    );
    await db.end();

    // 2. End to end at a steady rate: POST /messages → message.status `sent` at the receiver.
    const recipients = await seedRecipients(admin, { orgId, appId }, 100, 'hook-bench');
    for (const endpoint of endpoints.slice(1)) await api('DELETE', `/webhooks/${endpoint.id}`, key);
    const sentAt = new Map();
    const answeredAt = new Map();
    const arrived = new Map();
    receiver.respond((req) => {
      if (req.method === 'POST') {
        const body = JSON.parse(req.rawBody.toString('utf8'));
        if (body.data?.status === 'sent' && body.data.clientReference && !arrived.has(body.data.clientReference))
          arrived.set(body.data.clientReference, req.receivedAt);
      }
      return undefined;
    });
    const rate = Number(values.rate);
    const count = rate * Number(values.seconds);
    const sendsWatched = watchMachine();
    const results = await atEvenPace(rate, count, (i) => {
      const ref = `e2e-${i}`;
      sentAt.set(ref, Date.now());
      return api(
        'POST',
        '/messages',
        key,
        { to: { appUserId: recipients[i % recipients.length] }, type: 'text', text: `e2e ${i}`, clientReference: ref },
        { 'idempotency-key': randomUUID() },
      ).then(
        (res) => {
          answeredAt.set(ref, Date.now());
          return res;
        },
        (error) => ({ error }),
      );
    });
    const deadline = Date.now() + 30_000;
    while (arrived.size < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const sendsMachine = sendsWatched();
    const latencies = [...arrived].map(([ref, at]) => at - sentAt.get(ref)).sort((a, b) => a - b);
    // Where the time goes: until the 202, and from the 202 to the webhook.
    const accepted = [...answeredAt].map(([ref, at]) => at - sentAt.get(ref)).sort((a, b) => a - b);
    const afterAccepted = [...arrived]
      .filter(([ref]) => answeredAt.has(ref))
      .map(([ref, at]) => at - answeredAt.get(ref))
      .sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          bench: 'POST /messages → message.status sent webhook',
          sendsPerSecond: rate,
          sends: count,
          failedSends: results.filter((r) => r && r.error).length,
          firstFailure: results.find((r) => r && r.error)?.error.message.slice(0, 300) ?? null,
          webhooksArrived: arrived.size,
          latencyMs: { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
          sendAnsweredMs: { p50: percentile(accepted, 50), p99: percentile(accepted, 99) },
          answerToWebhookMs: { p50: percentile(afterAccepted, 50), p99: percentile(afterAccepted, 99) },
          ...sendsMachine,
        },
        null,
        2,
      ),
    );
  });
} finally {
  await receiver.close();
}
