/**
 * `npm run chaos`: the fault campaign on a stack of its own (its own Kafka broker and Postgres
 * cluster; the shared S3Proxy). For each scenario: sends at an even rate from retrying clients, the
 * fault, more sends once the platform serves again, then, with the load stopped, every accepted
 * message checked (sent, in the inbox once, its `sent` webhook once). One table row per scenario;
 * exit 1 when any scenario lost, duplicated or gave up a send.
 *
 * `noisy-neighbour` adds an app of its own that sends at `--noisy-rate` while one of its endpoints
 * answers 500 and the other hangs: the campaign's apps must lose nothing and their `sent` webhooks
 * arrive within 2 s of the send's acceptance (p99).
 *
 * Usage: npm run chaos [-- --scenarios kill-messaging,broker-stop --seconds 10 --warmup 5 --rate 60
 *   --fault-seconds 10 --drain-seconds 120 --port 6500 --apps 4 --users 15 --noisy-rate 25 --json report.json]
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ChaosStack, WEBHOOK_HOST } from './chaos-stack.mjs';
import { checkDeliveries, WebhookLog } from './delivery-check.mjs';
import { allReady, injectFault, scenarioNames } from './fault-scenarios.mjs';
import { NoisyNeighbour } from './noisy-neighbour.mjs';
import { SendLoad } from './send-load.mjs';
import { percentile } from '../bench/latency.mjs';

const { values: opts } = parseArgs({
  options: {
    scenarios: { type: 'string', default: scenarioNames().join(',') },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '5' },
    rate: { type: 'string', default: '60' },
    'fault-seconds': { type: 'string', default: '10' },
    'drain-seconds': { type: 'string', default: '120' },
    port: { type: 'string', default: '6500' },
    apps: { type: 'string', default: '4' },
    users: { type: 'string', default: '15' },
    'noisy-rate': { type: 'string', default: '25' },
    json: { type: 'string' },
  },
});
const scenarios = opts.scenarios
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
for (const name of scenarios) if (!scenarioNames().includes(name)) throw new Error(`unknown scenario ${name} (known: ${scenarioNames().join(', ')})`);
const TARGET_SERVE_AGAIN_MS = 10_000;
// Tighter for what the platform controls alone: a restarted replica ready, sends after the broker's return.
const TARGET_READY_MS = 5_000;
const TARGET_AFTER_BROKER_MS = 5_000;
const serveAgainTarget = (scenario) => (scenario === 'broker-stop' ? TARGET_AFTER_BROKER_MS : TARGET_SERVE_AGAIN_MS);
/** Beside a noisy neighbour, the other apps' send (accepted) → `sent` webhook, at the 99th percentile. */
const TARGET_QUIET_WEBHOOK_P99_MS = 2_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line) => console.error(`${new Date().toISOString().slice(11, 19)} ${line}`);

/** @type {[string, (row: any) => string | number][]} */
const COLUMNS = [
  ['scenario', (r) => r.scenario],
  ['attempted', (r) => r.attempted],
  ['accepted', (r) => r.accepted],
  ['lost', (r) => r.lost],
  ['duplicated', (r) => r.duplicated],
  ['redelivered (same event id)', (r) => r.redelivered],
  ['gave up', (r) => r.gaveUp],
  ['refused', (r) => r.refused],
  [
    'serving again',
    (r) =>
      r.serveAgainMs === null
        ? 'never'
        : `${(r.serveAgainMs / 1000).toFixed(1)} s${r.serveAgainTargetMet ? '' : ` (> ${serveAgainTarget(r.scenario) / 1000} s)`}`,
  ],
  [
    'quiet webhooks p99',
    (r) =>
      r.quietWebhookP99Ms === undefined
        ? ''
        : `${(r.quietWebhookP99Ms / 1000).toFixed(1)} s${r.quietWebhookP99Ms <= TARGET_QUIET_WEBHOOK_P99_MS ? '' : ` (> ${TARGET_QUIET_WEBHOOK_P99_MS / 1000} s)`}`,
  ],
  [
    'restarted app ready',
    (r) =>
      r.restartedReadyMs === undefined
        ? ''
        : `${(r.restartedReadyMs / 1000).toFixed(1)} s${r.restartedReadyMs <= TARGET_READY_MS ? '' : ` (> ${TARGET_READY_MS / 1000} s)`}`,
  ],
];

const stack = new ChaosStack(Number(opts.port));
let closing = null;
const close = () => (closing ??= stack.close());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, async () => {
    log(`${signal}: stopping the stack, the broker and the Postgres cluster…`);
    await close();
    process.exit(130);
  });
}

let exitCode = 1;
try {
  log(`starting a broker on ${stack.ports.kafka}, Postgres on ${stack.ports.postgres}, the apps on ${stack.ports.base}…`);
  await stack.start();
  const { recipients, keys } = await seed(stack, Number(opts.apps), Number(opts.users));
  const webhooks = new WebhookLog(stack.receiver);
  const neighbour = scenarios.includes('noisy-neighbour') ? new NoisyNeighbour(stack) : null;
  await neighbour?.seed(Number(opts.users));
  const rows = [];
  for (const name of scenarios) {
    if (!(await allReady(stack, 120_000))) throw new Error(`the stack is not ready before ${name}`);
    rows.push(await runScenario(name, { recipients, keys, webhooks, neighbour }));
    printRow(rows.at(-1));
  }
  const report = {
    command: `npm run chaos -- ${process.argv.slice(2).join(' ')}`.trim(),
    at: new Date().toISOString(),
    rate: Number(opts.rate),
    scenarios: rows,
    supervisorRestarts: stack.restarts,
  };
  console.log(`\n${table(rows)}`);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
  const late = (r) => r.quietWebhookP99Ms !== undefined && !(r.quietWebhookP99Ms <= TARGET_QUIET_WEBHOOK_P99_MS);
  const failed = rows.filter((r) => r.lost > 0 || r.duplicated > 0 || r.gaveUp > 0 || late(r));
  exitCode = failed.length > 0 ? 1 : 0;
  if (failed.length > 0) console.log(`\nFAILED: ${failed.map((r) => r.scenario).join(', ')} lost, duplicated or gave up sends, or delivered webhooks late`);
} catch (error) {
  console.error(`chaos: ${error.stack ?? error}`);
} finally {
  await close();
}
process.exit(exitCode);

async function runScenario(name, { recipients, keys, webhooks, neighbour }) {
  const load = new SendLoad({ publicUrl: stack.publicUrl, recipients, rate: Number(opts.rate) });
  log(`${name}: load at ${opts.rate}/s`);
  load.start();
  await sleep(Number(opts.warmup) * 1000);
  const noisy = neighbour ? { neighbour, webhooks, rate: Number(opts['noisy-rate']) } : undefined;
  const fault = await injectFault(name, stack, { faultSeconds: Number(opts['fault-seconds']), noisy });
  log(`${name}: fault over after ${((fault.faultEnd - fault.faultStart) / 1000).toFixed(1)} s`);
  // A send begun after the fault's end and accepted: the platform serves again.
  const servedAgain = () =>
    load.sends.filter((s) => s.firstAt >= fault.faultEnd && s.outcome === 'accepted').reduce((min, s) => Math.min(min, s.endedAt), Infinity);
  const deadline = Date.now() + 90_000;
  while (servedAgain() === Infinity && Date.now() < deadline) await sleep(100);
  await sleep(Number(opts.seconds) * 1000);
  log(`${name}: load stopped; waiting for ${load.inFlight.size} sends still retrying`);
  await load.stop();
  if (!(await allReady(stack, 120_000))) log(`${name}: not every app is ready after the load`);
  log(`${name}: checking ${load.sends.filter((s) => s.outcome === 'accepted').length} accepted messages`);
  const check = await checkDeliveries({ stack, webhooks, sends: load.sends, keys, deadlineMs: Number(opts['drain-seconds']) * 1000 });
  if (name === 'noisy-neighbour') await neighbour.stop(webhooks);
  const count = (outcome) => load.sends.filter((s) => s.outcome === outcome).length;
  // Sends accepted from the fault's start on: their `sent` webhook's delay after the 202 (a missing one is lost, counted above).
  const quietLatencies = load.sends
    .filter((s) => s.outcome === 'accepted' && s.endedAt >= fault.faultStart && webhooks.firstSentAt.has(s.messageId))
    .map((s) => webhooks.firstSentAt.get(s.messageId) - s.endedAt)
    .sort((a, b) => a - b);
  const serveAgainMs = servedAgain() === Infinity ? null : servedAgain() - fault.faultEnd;
  return {
    scenario: name,
    attempted: load.sends.length,
    accepted: count('accepted'),
    lost: check.lost,
    duplicated: check.duplicated,
    redelivered: check.redelivered,
    gaveUp: count('gave up'),
    refused: count('refused'),
    serveAgainMs,
    serveAgainTargetMet: serveAgainMs !== null && serveAgainMs <= serveAgainTarget(name),
    faultMs: fault.faultEnd - fault.faultStart,
    restartedReadyMs: fault.readyAgainAt ? fault.readyAgainAt - fault.faultEnd : undefined,
    ...(name === 'noisy-neighbour'
      ? {
          quietWebhookP99Ms: percentile(quietLatencies, 99),
          quietWebhookP50Ms: percentile(quietLatencies, 50),
          noisySends: neighbour.sent,
          hangingPeakOpenRequests: stack.receiver.openRequests(neighbour.paths.hanging).peak,
        }
      : {}),
    retriedSends: load.sends.filter((s) => s.attempts > 1).length,
    maxAttempts: Math.max(0, ...load.sends.map((s) => s.attempts)),
    lastAnswersOfFailedSends: tally(load.sends.filter((s) => s.outcome !== 'accepted').map((s) => s.last)),
    ...check,
  };
}

/** Sandbox apps (high daily quota), each with a webhook endpoint on the receiver and opted-in testers. */
async function seed(stack, appCount, usersPerApp) {
  const recipients = [];
  const keys = new Map();
  for (let a = 0; a < appCount; a++) {
    const org = await stack.admin('POST', '/orgs', { name: `Chaos ${a}`, allowsExternalBusinesses: true });
    const app = await stack.admin('POST', '/apps', { orgId: org.id, handle: `chaos-${a}-${Date.now()}`, displayName: `Chaos ${a}` });
    await stack.admin('PATCH', `/apps/${app.id}`, { dailyQuota: 100_000_000 });
    const { key } = await stack.admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' });
    keys.set(app.id, key);
    const res = await fetch(`${stack.publicUrl}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://${WEBHOOK_HOST}/app-${a}`, verifyToken: 'chaos-verify-token', events: ['message.status'] }),
    });
    if (!res.ok) throw new Error(`POST /webhooks: ${res.status} ${await res.text()}`);
    for (let u = 0; u < usersPerApp; u++) {
      const user = await stack.admin('POST', '/users', { orgId: org.id, email: `chaos-${a}-${u}-${Date.now()}@example.test` });
      await stack.admin('POST', `/apps/${app.id}/testers`, { userId: user.id });
      await stack.admin('POST', `/sim/users/${user.id}/apps/${app.id}/accept-tester`);
      // The tester writes first, so the reply window is open and no business-initiated cap applies.
      const { appUserId } = await stack.admin('POST', `/sim/users/${user.id}/messages`, { appId: app.id, type: 'text', text: 'hi' });
      recipients.push({ key, appId: app.id, userId: user.id, appUserId });
    }
  }
  log(`seeded ${appCount} apps, ${recipients.length} testers, a webhook endpoint per app`);
  return { recipients, keys };
}

function tally(values) {
  const out = {};
  for (const v of values) out[v ?? 'none'] = (out[v ?? 'none'] ?? 0) + 1;
  return out;
}

function printRow(r) {
  log(
    `${r.scenario}: ${COLUMNS.slice(1)
      .map(([h, f]) => `${h} ${f(r)}`)
      .join(', ')}`,
  );
}

function table(rows) {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => String(f(r))))];
  return cells.map((line, i) => `| ${line.join(' | ')} |${i === 0 ? `\n|${COLUMNS.map(() => '---').join('|')}|` : ''}`).join('\n');
}
