/**
 * The OpenAPI fuzz of the e2e suite at length: at least 100 000 hostile requests across every public
 * route against a bench stack (own database, ports and Kafka namespace), with the same counts (no
 * 5xx, the envelope and headers on every refusal, no hang). Exits non-zero on any failure.
 * Usage: npm run bench:fuzz [-- --count 100000 --concurrency 16 --seed N]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runFuzz, sampleRequests } from '../test/openapi-fuzz.mjs';
import { seedApp, withBenchStack } from './bench-stack.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    concurrency: { type: 'string', default: '16' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    apps: { type: 'string', default: '4' },
  },
});
const document = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8'));
const seed = Number(values.seed);
const count = Number(values.count);

const counts = await withBenchStack(async ({ publicUrl, admin }) => {
  const keys = [];
  for (let i = 0; i < Number(values.apps); i++) keys.push((await seedApp(admin, `Fuzz${i}`)).key);
  // Generated in slices so 100 000 requests never sit in memory at once.
  const total = {
    requests: 0,
    byStatus: {},
    byCode: {},
    serverErrors: 0,
    withoutEnvelope: 0,
    withoutHeaders: 0,
    hangs: 0,
    transportErrors: 0,
    examples: [],
    seconds: 0,
  };
  for (let done = 0; done < count; done += 10_000) {
    const requests = sampleRequests(document, Math.min(10_000, count - done), seed + done);
    const part = await runFuzz({ baseUrl: publicUrl, keys, requests, concurrency: Number(values.concurrency) });
    for (const field of ['requests', 'serverErrors', 'withoutEnvelope', 'withoutHeaders', 'hangs', 'transportErrors', 'seconds']) total[field] += part[field];
    for (const [status, n] of Object.entries(part.byStatus)) total.byStatus[status] = (total.byStatus[status] ?? 0) + n;
    for (const [code, n] of Object.entries(part.byCode)) total.byCode[code] = (total.byCode[code] ?? 0) + n;
    total.examples.push(...part.examples.slice(0, 20 - total.examples.length));
    console.log(JSON.stringify({ progress: total.requests, serverErrors: total.serverErrors, hangs: total.hangs }));
  }
  total.seconds = Math.round(total.seconds * 10) / 10;
  return total;
});
console.log(JSON.stringify({ seed, requestsPerSecond: Math.round(counts.requests / counts.seconds), ...counts }, null, 1));
const failed = counts.serverErrors + counts.withoutEnvelope + counts.withoutHeaders + counts.hangs + counts.transportErrors;
process.exit(failed > 0 ? 1 : 0);
