/**
 * Runs the OpenAPI fuzz (openapi-fuzz.mjs) against a running gateway and prints its counts as one
 * JSON line. Usage: node tools/test/fuzz-run.mjs --base http://…/platform/v1 --keys k1,k2 [--count N --seed S --concurrency C]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runFuzz, sampleRequests } from './openapi-fuzz.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    keys: { type: 'string' },
    count: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    concurrency: { type: 'string', default: '16' },
    timeout: { type: 'string', default: '15000' },
  },
});
const document = JSON.parse(readFileSync(path.join(ROOT, 'docs/openapi.json'), 'utf8'));
const seed = Number(values.seed);
const requests = sampleRequests(document, Number(values.count), seed);
const counts = await runFuzz({
  baseUrl: values.base,
  keys: String(values.keys).split(','),
  requests,
  concurrency: Number(values.concurrency),
  timeoutMs: Number(values.timeout),
});
console.log(JSON.stringify({ seed, ...counts }));
