/**
 * GET /ping through the gateway with key lookup: requests per second and p50/p99 latency.
 * Starts its own stack (own database and ports) on the local infrastructure, seeds an app and key,
 * warms up, then runs autocannon. Usage: npm run bench:ping [-- --seconds 15 --connections 50]
 */
import { parseArgs } from 'node:util';
import { measure, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '15' }, connections: { type: 'string', default: '50' } } });

await withBenchStack(async ({ publicUrl, adminMetricsUrl, admin }) => {
  const { key } = await seedApp(admin, 'Bench');
  const lookups = async () => {
    const text = await (await fetch(adminMetricsUrl)).text();
    return Number(/gateway_api_key_db_lookups_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  const options = {
    url: `${publicUrl}/ping`,
    headers: { authorization: `Bearer ${key}` },
    connections: Number(values.connections),
    duration: Number(values.seconds),
  };
  const before = await lookups();
  const report = await measure('GET /ping', options);
  // The key cache should answer every request: Postgres sees at most the first lookup.
  console.log(JSON.stringify({ postgresKeyLookupsDuringRun: (await lookups()) - before }));
  return report;
});
