/**
 * `npm start`: infrastructure, build, the seven apps (migrations run as each boots), a demo org, app,
 * sandbox key and user, then the URLs and a curl to paste. Ctrl-C stops the apps (`npm run
 * infra:stop` stops Kafka and S3Proxy too).
 *
 * Options (for a second stack beside the dev one, e.g. a test's): --port N (base port), --database NAME,
 * --tag T (log and pid file names, `npm stop -- --tag T`), --namespace NS or --fresh-namespace BASE
 * (Kafka), --skip-build, --skip-seed.
 *
 * This process supervises the apps (tools/dev/supervisor.mjs) and keeps .data/run/stack-<tag>.json
 * naming itself and each app's current pid until it is stopped (Ctrl-C, SIGTERM, `npm stop`).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from '../build/build.mjs';
import { ensureInfra } from '../infra/infra.mjs';
import { freshKafkaNamespace } from '../infra/kafka-namespace.mjs';
import { pidFile, recordStack, stopRecordedStack } from './recorded-stack.mjs';
import { LOG_DIR, ROOT, startStack, stopChildren } from './stack.mjs';
import { Supervisor } from './supervisor.mjs';

const { values: opts } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.PORT ?? '3000' },
    database: { type: 'string' },
    tag: { type: 'string', default: 'dev' },
    namespace: { type: 'string' },
    'fresh-namespace': { type: 'string' },
    'skip-build': { type: 'boolean', default: false },
    'skip-seed': { type: 'boolean', default: false },
  },
});
const BASE_PORT = Number(opts.port);
const TAG = opts.tag;
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-admin-token';
const env = {
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  DATABASE_URL: opts.database
    ? `postgres://postgres@127.0.0.1:5432/${opts.database}`
    : (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform'),
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  CLOCK_MODE: process.env.CLOCK_MODE ?? 'system',
  ADMIN_TOKEN,
  CONSOLE_URL: process.env.CONSOLE_URL ?? `http://localhost:${BASE_PORT + 2}`,
  SMTP_URL: process.env.SMTP_URL ?? `smtp://127.0.0.1:${process.env.MAIL_SMTP_PORT ?? 1025}`,
  MAIL_SINK_URL: process.env.MAIL_SINK_URL ?? `http://127.0.0.1:${process.env.MAIL_HTTP_PORT ?? 1080}`,
  ...(opts.namespace !== undefined ? { KAFKA_NAMESPACE: opts.namespace } : {}),
};
const publicUrl = `http://localhost:${BASE_PORT}/platform/v1`;
const consoleUrl = env.CONSOLE_URL;
/** The demo app's creator: signs in to the console (the link arrives in the local mail sink). */
const DEMO_OWNER = 'owner@demo.example';
const adminUrl = `http://localhost:${BASE_PORT + 1}/admin/v1`;

/**
 * An admin API call; the parsed JSON answer (the admin API's own shapes, see architecture section 8).
 * @param {string} method
 * @param {string} route
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function adminCall(method, route, body) {
  const res = await fetch(adminUrl + route, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new Error(`admin ${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Reuses the demo seed of an earlier start when its key still works; otherwise seeds a new one. */
async function seed() {
  const file = path.join(ROOT, '.data/dev-seed.json');
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const ping = await fetch(`${publicUrl}/ping`, { headers: { authorization: `Bearer ${saved.sandboxKey}` } }).catch(() => null);
    if (ping?.ok && saved.appUserId) return saved;
  }
  const suffix = Date.now().toString(36);
  const org = await adminCall('POST', '/orgs', { name: 'Demo Org', allowsExternalBusinesses: true });
  // Its creator is its first owner in the console (sign in as DEMO_OWNER).
  const app = await adminCall('POST', '/apps', { orgId: org.id, handle: `demo-${suffix}`, displayName: 'Demo Business', creatorEmail: DEMO_OWNER });
  const key = await adminCall('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' });
  const user = await adminCall('POST', '/users', { orgId: org.id, email: `demo.user.${suffix}@demo.example`, displayName: 'Demo User' });
  // The demo user becomes a sandbox tester and writes first, so the app has an opted-in user with an open window.
  await adminCall('POST', `/apps/${app.id}/testers`, { userId: user.id });
  await adminCall('POST', `/sim/users/${user.id}/apps/${app.id}/accept-tester`);
  const { appUserId } = await adminCall('POST', `/sim/users/${user.id}/messages`, { appId: app.id, type: 'text', text: 'Hi there!' });
  const saved = { orgId: org.id, appId: app.id, sandboxKey: key.key, userId: user.id, appUserId };
  writeFileSync(file, JSON.stringify(saved, null, 2));
  return saved;
}

if (await stopRecordedStack(TAG)) console.log(`stopped an earlier ${TAG} stack`);
console.log('starting infrastructure (Kafka, S3Proxy, Postgres, SMTP sink)…');
await ensureInfra({ quiet: true });
if (opts['fresh-namespace'] !== undefined) env.KAFKA_NAMESPACE = await freshKafkaNamespace(opts['fresh-namespace']);
if (!opts['skip-build']) {
  console.log('building (npm run build)…');
  const status = build();
  if (status !== 0) process.exit(status);
}
let stopping = false;
/** @type {Record<string, import('node:child_process').ChildProcess>} */
let children = {};
let supervisor;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping the apps…');
  await (supervisor ? supervisor.stop() : stopChildren(Object.values(children)));
  rmSync(pidFile(TAG), { force: true });
  process.exit(0);
};
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(name, shutdown);

console.log('starting the apps…');
let ports;
try {
  // Recorded as soon as they run, so `npm stop` during the start finds them too.
  ({ ports } = await startStack({
    basePort: BASE_PORT,
    env,
    tag: TAG,
    onSpawned: (spawned, stackPorts) => {
      children = spawned;
      recordStack(TAG, { supervisor: process.pid, ports: stackPorts, children });
    },
  }));
} catch (error) {
  // A stop during the start ends it from shutdown(); anything else is a failed start.
  if (stopping) await new Promise(() => {});
  rmSync(pidFile(TAG), { force: true });
  throw error;
}
supervisor = new Supervisor({
  children,
  ports,
  env,
  tag: TAG,
  logDir: LOG_DIR,
  onRestart: () => recordStack(TAG, { supervisor: process.pid, ports, children }),
});
const demo = opts['skip-seed'] ? null : await seed();

const demoLines = demo
  ? `
  Demo         org ${demo.orgId}, app ${demo.appId} (sandbox), user ${demo.userId} (appUserId ${demo.appUserId}, an opted-in tester)
  Sandbox key  ${demo.sandboxKey}`
  : '';
const tryIt = demo
  ? `
Try it:

  curl -s ${publicUrl}/ping -H "Authorization: Bearer ${demo.sandboxKey}"
  curl -s ${publicUrl}/users/${demo.appUserId} -H "Authorization: Bearer ${demo.sandboxKey}"
`
  : '';
const stopCommand = TAG === 'dev' ? 'npm stop' : `npm stop -- --tag ${TAG}`;
console.log(`
Business Messaging Platform is running.

  Public API   ${publicUrl}
  Reference    ${publicUrl}/docs   (the OpenAPI document: ${publicUrl}/openapi.json)
  Admin API    ${adminUrl}   (Authorization: Bearer ${ADMIN_TOKEN})
  Console      ${consoleUrl}${demo ? `   (sign in as ${DEMO_OWNER}; the link: GET ${adminUrl}/mail?to=${DEMO_OWNER})` : ''}${demoLines}
  Logs         .data/logs/${TAG}-<app>.log
${tryIt}
Ctrl-C (or ${stopCommand}) stops the apps; a crashed app is restarted.`);
