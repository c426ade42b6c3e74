/**
 * GET /ping through the gateway with key lookup: requests per second and p50/p99 latency.
 * Starts its own stack (own database and ports) on the local infrastructure, seeds an app and key,
 * warms up, then runs autocannon. Usage: npm run bench:ping [-- --seconds 15 --connections 50]
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ensureInfra } from '../infra/infra.mjs';
import { startStack, stopChildren } from '../dev/stack.mjs';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' }, connections: { type: 'string', default: '50' } } });
// Not 5000: its chat-sim port 5060 is on fetch's list of blocked ports (SIP).
const BASE = 5500;
const DB = 'platform_bench';
const env = {
  NODE_ENV: 'production-like',
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${DB}`,
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  ADMIN_TOKEN: 'bench-admin-token',
  KAFKA_NAMESPACE: 'bench.',
  // The bench measures the pipeline, not the per-app bucket.
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
};

await ensureInfra({ quiet: true });
const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await client.connect();
await client.query(`drop database if exists ${DB} with (force)`);
await client.query(`create database ${DB}`);
await client.end();

const { children } = await startStack({ basePort: BASE, env, tag: 'bench' });
try {
  const adminUrl = `http://127.0.0.1:${BASE + 1}/admin/v1`;
  const call = async (method, path, body) => {
    const res = await fetch(adminUrl + path, { method, headers: { authorization: 'Bearer bench-admin-token', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const org = await call('POST', '/orgs', { name: 'Bench', allowsExternalBusinesses: true });
  const app = await call('POST', '/apps', { orgId: org.id, handle: `bench-${Date.now()}`, displayName: 'Bench' });
  const key = await call('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' });
  const lookups = async () => {
    const text = await (await fetch(`http://127.0.0.1:${BASE + 1}/metrics`)).text();
    return Number(/gateway_api_key_db_lookups_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  const url = `http://127.0.0.1:${BASE}/platform/v1/ping`;
  const headers = { authorization: `Bearer ${key.key}` };
  await autocannon({ url, headers, connections: 10, duration: 3 });
  const before = await lookups();
  const result = await autocannon({ url, headers, connections: Number(values.connections), duration: Number(values.seconds) });
  const after = await lookups();
  const non2xx = result.non2xx + result.errors + result.timeouts;
  console.log(
    JSON.stringify(
      {
        bench: 'GET /ping',
        seconds: Number(values.seconds),
        connections: Number(values.connections),
        requests: result.requests.total,
        requestsPerSecond: Math.round(result.requests.average),
        latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
        failed: non2xx,
        postgresKeyLookupsDuringRun: after - before,
      },
      null,
      2,
    ),
  );
} finally {
  await stopChildren(Object.values(children));
}
