/**
 * Noisy neighbours: does one app's trouble stay its own? On one stack, with the platform's real
 * request limits (100/s, bursts of 200 per app):
 * 1. Without noise: a noisy app sends at `--noisy-rate` to two healthy endpoints, a quiet app at
 *    `--quiet-rate` to one; the quiet app's POST /messages → `sent` webhook p50/p99.
 * 2. With noise: the same load, the noisy app's endpoints now one answering 500 and one hanging past
 *    the 10 s answer limit; the quiet app's figure again, and the noisy endpoints' retry lateness
 *    (an attempt's start minus its due time, attempts 2 and later; held attempts included).
 * 3. Refused sends: an app empties its bucket with pings, then sends 300 with fresh keys at once;
 *    messaging's served calls per refused (429) send.
 * 4. With `--soak-minutes N`: the noise keeps going for N minutes over `--pending` retries seeded
 *    for the noisy endpoints, due over the soak; the quiet app's figure per minute and each app's
 *    peak memory.
 * Each app's memory (RSS, V8 heap, external) is printed at the start and the end.
 * Targets: quiet p99 ≤ 2 s and ≤ 1.5× its no-noise p99; retry lateness p99 ≤ 10 s; 0 messaging
 * calls per refused send; every app ≤ 256 MB RSS.
 * The defaults give the quiet app 600 sends a phase, so that its p99 is not one or two sends.
 * Usage: npm run bench:neighbours [-- --seconds 120 --noisy-rate 25 --quiet-rate 5 --soak-minutes 10 --pending 100000]
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { atEvenPace, benchEnv, BENCH_BASE_PORT, seedApp, seedPublicEvents, watchMachine, withBenchStack } from './bench-stack.mjs';
import { percentile } from './latency.mjs';
import { counterTotal, stackMemory, watchMemory } from './memory-report.mjs';
import { seedRecipients } from './seed-recipients.mjs';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' },
    'noisy-rate': { type: 'string', default: '25' },
    'quiet-rate': { type: 'string', default: '5' },
    'soak-minutes': { type: 'string', default: '0' },
    pending: { type: 'string', default: '0' },
  },
});
const SECONDS = Number(values.seconds);
const NOISY_RATE = Number(values['noisy-rate']);
const QUIET_RATE = Number(values['quiet-rate']);
const SOAK_MINUTES = Number(values['soak-minutes']);
const PENDING = Number(values.pending);
/** Longer than the 10 s answer limit: every attempt to the hanging endpoint times out. */
const HANG_MS = 30_000;

const require = createRequire(import.meta.url);
const { HttpsReceiver } = require(path.join(ROOT, 'dist/libs/testing/src/https-receiver.js'));
const { testCertificates } = require(path.join(ROOT, 'dist/libs/testing/src/test-certificates.js'));
const certs = testCertificates(path.join(ROOT, '.data/test-certs'));
const NOISY_PORT = BENCH_BASE_PORT + 71;
const QUIET_PORT = BENCH_BASE_PORT + 72;
// Real request limits (the harness lifts them for throughput benches): refusals are part of the figure.
delete benchEnv.RATE_LIMIT_RPS;
delete benchEnv.RATE_LIMIT_BURST;
Object.assign(benchEnv, {
  WEBHOOK_DEV_HOSTS: `noisy.local.test=127.0.0.1:${NOISY_PORT},quiet.local.test=127.0.0.1:${QUIET_PORT}`,
  WEBHOOK_CA_FILE: certs.caFile,
});
const noisyReceiver = await HttpsReceiver.start({ port: NOISY_PORT, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });
const quietReceiver = await HttpsReceiver.start({ port: QUIET_PORT, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });
/** @type {Map<string, number>} clientReference → when its `sent` webhook reached the quiet receiver */
const quietArrived = new Map();
quietReceiver.respond((req) => {
  if (req.method === 'POST') {
    const body = JSON.parse(req.rawBody.toString('utf8'));
    if (body.data?.status === 'sent' && body.data.clientReference && !quietArrived.has(body.data.clientReference))
      quietArrived.set(body.data.clientReference, req.receivedAt);
  }
  return undefined;
});
let noisy = false;
/** @type {{ failing: string, hanging: string }} */
const noisyPaths = { failing: '/failing', hanging: '/hanging' };
noisyReceiver.respond((req) => {
  if (!noisy || req.method !== 'POST') return undefined;
  if (req.path === noisyPaths.failing) return { status: 500, body: 'down' };
  if (req.path === noisyPaths.hanging) return { status: 200, delayMs: HANG_MS };
  return undefined;
});

/** @param {string} publicUrl */
function apiClient(publicUrl) {
  /** @type {(method: string, route: string, key: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number, body: any }>} */
  return async (method, route, key, body, headers = {}) => {
    const res = await fetch(publicUrl + route, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

try {
  await withBenchStack(async ({ publicUrl, admin }) => {
    const api = apiClient(publicUrl);
    const memoryAtStart = await stackMemory(BENCH_BASE_PORT);
    /** An app with tester recipients whose reply windows are open (no business-initiated cap). */
    const appWithRecipients = async (name, count) => {
      const app = await seedApp(admin, name);
      await admin('PATCH', `/apps/${app.appId}`, { dailyQuota: 100_000_000 });
      const recipients = await seedRecipients(admin, app, count, name.toLowerCase());
      return { ...app, recipients };
    };
    const register = async (app, url) => {
      const res = await api('POST', '/webhooks', app.key, { url, verifyToken: 'bench-verify-token', events: ['message.status'] });
      if (res.status !== 201) throw new Error(`POST /webhooks: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.id;
    };
    const quiet = await appWithRecipients('Quiet', 10);
    const noisyApp = await appWithRecipients('Noisy', 40);
    await register(quiet, 'https://quiet.local.test/hooks');
    const noisyEndpoints = [
      await register(noisyApp, `https://noisy.local.test${noisyPaths.failing}`),
      await register(noisyApp, `https://noisy.local.test${noisyPaths.hanging}`),
    ];

    /** Both apps send at their rates for `seconds`; the quiet app's send → webhook latencies once they arrived (or 60 s passed). */
    const load = async (label, seconds) => {
      const sentAt = new Map();
      const send = (app, i, prefix) => {
        const ref = `${prefix}-${i}`;
        if (prefix.startsWith('quiet')) sentAt.set(ref, Date.now());
        return api(
          'POST',
          '/messages',
          app.key,
          { to: { appUserId: app.recipients[i % app.recipients.length] }, type: 'text', text: `${label} ${i}`, clientReference: ref },
          { 'idempotency-key': randomUUID() },
        ).catch((error) => ({ status: 0, body: String(error) }));
      };
      const watched = watchMachine();
      const [quietAnswers, noisyAnswers] = await Promise.all([
        atEvenPace(QUIET_RATE, QUIET_RATE * seconds, (i) => send(quiet, i, `quiet-${label}`)),
        atEvenPace(NOISY_RATE, NOISY_RATE * seconds, (i) => send(noisyApp, i, `noisy-${label}`)),
      ]);
      const deadline = Date.now() + 60_000;
      const arrivedOf = () => [...sentAt.keys()].filter((ref) => quietArrived.has(ref));
      while (arrivedOf().length < sentAt.size && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const latencies = arrivedOf()
        .map((ref) => quietArrived.get(ref) - sentAt.get(ref))
        .sort((a, b) => a - b);
      return {
        quietSends: sentAt.size,
        quietAccepted: quietAnswers.filter((r) => r.status === 202).length,
        noisyAccepted: noisyAnswers.filter((r) => r.status === 202).length,
        quietWebhooksArrived: latencies.length,
        quietLatencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] },
        ...watched(),
      };
    };

    const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
    await db.connect();
    /** The noisy endpoints' retries since `since`: start minus due time, ms (held attempts included). */
    const retryLateness = async (since) => {
      const { rows } = await db.query(
        `select a.outcome, (extract(epoch from a.started_at - a.due_at) * 1000)::int as ms
           from webhook_dispatcher.delivery_attempts a join webhook_dispatcher.deliveries d on d.delivery_id = a.delivery_id
          where d.endpoint_id = any($1) and a.attempt >= 2 and a.started_at >= $2 and a.due_at is not null`,
        [noisyEndpoints, since],
      );
      const ms = rows.map((r) => r.ms).sort((a, b) => a - b);
      return {
        retries: ms.length,
        held: rows.filter((r) => r.outcome === 'held').length,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        max: ms[ms.length - 1],
      };
    };

    const calm = await load('calm', SECONDS);
    console.log(
      JSON.stringify({ bench: 'neighbours: quiet app beside a calm one', seconds: SECONDS, noisyRate: NOISY_RATE, quietRate: QUIET_RATE, ...calm }, null, 2),
    );

    noisy = true;
    const noiseStarted = new Date();
    const loud = await load('noise', SECONDS);
    const lateness = await retryLateness(noiseStarted);
    console.log(
      JSON.stringify(
        {
          bench: 'neighbours: quiet app beside a failing and a hanging endpoint',
          seconds: SECONDS,
          ...loud,
          quietP99VersusCalm: Math.round((loud.quietLatencyMs.p99 / calm.quietLatencyMs.p99) * 100) / 100,
          noisyRetryLatenessMs: lateness,
          hangingPeakOpenRequests: noisyReceiver.openRequests(noisyPaths.hanging).peak,
        },
        null,
        2,
      ),
    );

    // 3. Refused sends cost messaging nothing.
    const limited = await appWithRecipients('Limited', 1);
    const messagingMetrics = `http://127.0.0.1:${BENCH_BASE_PORT + 10}/metrics`;
    const messagingCalls = async () => counterTotal(await (await fetch(messagingMetrics)).text(), 'rpc_server_duration_seconds_count');
    let pingRefused = 0;
    while (pingRefused < 20) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => api('GET', '/ping', limited.key)));
      pingRefused += answers.filter((r) => r.status === 429).length;
    }
    const callsBefore = await messagingCalls();
    const burst = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        api(
          'POST',
          '/messages',
          limited.key,
          { to: { appUserId: limited.recipients[0] }, type: 'text', text: `over ${i}` },
          { 'idempotency-key': randomUUID() },
        ),
      ),
    );
    // Calls in flight are counted when answered; the refusals' would have been answered long before this.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const calls = (await messagingCalls()) - callsBefore;
    const accepted = burst.filter((r) => r.status === 202).length;
    const refused = burst.filter((r) => r.status === 429).length;
    console.log(
      JSON.stringify(
        {
          bench: 'neighbours: sends over the rate limit',
          sends: burst.length,
          accepted,
          refused,
          messagingCalls: calls,
          messagingCallsPerRefusedSend: refused ? Math.round(((calls - accepted) / refused) * 100) / 100 : null,
        },
        null,
        2,
      ),
    );

    if (SOAK_MINUTES > 0) {
      if (PENDING > 0) {
        // Retries of earlier deliveries, due evenly over the soak.
        const now = new Date();
        await db.query('begin');
        await seedPublicEvents(db, { appId: noisyApp.appId, tag: 'SOAK', count: Math.ceil(PENDING / 2), now });
        await db.query(
          `insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at)
           select 'wd_SOAK' || lpad((e.i * 10 + x.n)::text, 23, '0'), $1, x.endpoint_id, 'evt_SOAK' || lpad(e.i::text, 22, '0'), 'message.status', 'pending', 1,
                  $2, $2::timestamptz + (random() * $5::int) * interval '1 second'
           from generate_series(1, $3::int) as e(i) cross join unnest($4::text[]) with ordinality as x(endpoint_id, n)`,
          [noisyApp.appId, now, Math.ceil(PENDING / 2), noisyEndpoints, SOAK_MINUTES * 60],
        );
        await db.query('commit');
      }
      const peaks = watchMemory(BENCH_BASE_PORT);
      const soakStarted = new Date();
      const minutes = [];
      for (let minute = 1; minute <= SOAK_MINUTES; minute++) {
        const figure = await load(`soak${minute}`, 60);
        minutes.push({
          minute,
          quietP99Ms: figure.quietLatencyMs.p99,
          quietArrived: `${figure.quietWebhooksArrived}/${figure.quietSends}`,
          machine: figure.machine,
        });
      }
      const { rows } = await db.query(`select count(*)::int as n from webhook_dispatcher.deliveries where status = 'pending' and endpoint_id = any($1)`, [
        noisyEndpoints,
      ]);
      console.log(
        JSON.stringify(
          {
            bench: 'neighbours: soak',
            minutes: SOAK_MINUTES,
            seededPendingRetries: PENDING,
            pendingAtEnd: rows[0].n,
            perMinute: minutes,
            noisyRetryLatenessMs: await retryLateness(soakStarted),
            peakRssMb: await peaks(),
          },
          null,
          2,
        ),
      );
    }
    await db.end();
    console.log(JSON.stringify({ bench: 'neighbours: memory', atStart: memoryAtStart, atEnd: await stackMemory(BENCH_BASE_PORT) }, null, 2));
  });
} finally {
  await noisyReceiver.close();
  await quietReceiver.close();
}
