/**
 * `npm start`: infrastructure, build, the seven apps (migrations run as each boots), a demo org, app,
 * sandbox key and user, then the URLs and a curl to paste. Ctrl-C stops the apps (`npm run
 * infra:stop` stops Kafka and S3Proxy too).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureInfra } from '../infra/infra.mjs';
import { recordPids, ROOT, startStack, stopChildren, stopRecordedStack, pidFile } from './stack.mjs';

const BASE_PORT = Number(process.env.PORT ?? 3000);
const ADMIN_TOKEN = process.env.ADMIN_TOKEN ?? 'dev-admin-token';
const env = {
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform',
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  CLOCK_MODE: process.env.CLOCK_MODE ?? 'system',
  ADMIN_TOKEN,
};
const publicUrl = `http://localhost:${BASE_PORT}/platform/v1`;
const adminUrl = `http://localhost:${BASE_PORT + 1}/admin/v1`;

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
  const app = await adminCall('POST', '/apps', { orgId: org.id, handle: `demo-${suffix}`, displayName: 'Demo Business' });
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

if (await stopRecordedStack('dev')) console.log('stopped an earlier dev stack');
console.log('starting infrastructure (Kafka, S3Proxy, Postgres)…');
await ensureInfra({ quiet: true });
console.log('building…');
const build = spawnSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
console.log('starting the apps…');
const { children, ports } = await startStack({ basePort: BASE_PORT, env, tag: 'dev' });
recordPids('dev', children, ports);
const demo = await seed();

console.log(`
Business Messaging Platform is running.

  Public API   ${publicUrl}
  Admin API    ${adminUrl}   (Authorization: Bearer ${ADMIN_TOKEN})
  Demo         org ${demo.orgId}, app ${demo.appId} (sandbox), user ${demo.userId} (appUserId ${demo.appUserId}, an opted-in tester)
  Sandbox key  ${demo.sandboxKey}
  Logs         .data/logs/dev-<app>.log

Try it:

  curl -s ${publicUrl}/ping -H "Authorization: Bearer ${demo.sandboxKey}"
  curl -s ${publicUrl}/users/${demo.appUserId} -H "Authorization: Bearer ${demo.sandboxKey}"

Ctrl-C stops the apps.`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nstopping the apps…');
  await stopChildren(Object.values(children));
  const { rmSync } = await import('node:fs');
  rmSync(pidFile('dev'), { force: true });
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
for (const [app, child] of Object.entries(children)) {
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`${app} exited (${signal ?? code}); see .data/logs/dev-${app}.log`);
  });
}
