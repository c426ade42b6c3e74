/**
 * `npm test`: type-check, lint, build (with the OpenAPI document, which must be committed as built, and
 * its lint) and the unit tests, in two lanes at once; then the integration and e2e tests against the real
 * Kafka, Postgres and S3Proxy, which are started when missing. A dev stack from `npm start` is
 * stopped first: it shares the Kafka topics and consumer groups with the test stack. Missing
 * infrastructure starts while the checks run, and what this run started is stopped at its end, pass or
 * fail, unless `KEEP_INFRA=1`; what was running before is left running.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { stopRecordedStack } from '../dev/recorded-stack.mjs';
import { ROOT } from '../dev/stack.mjs';
import { ensureInfra, stopInfra } from '../infra/infra.mjs';

// Started now, awaited before Jest: Kafka's and S3Proxy's JVMs warm up while the checks run.
/** @type {Promise<{ started: Array<'kafka'|'s3'|'postgres'|'mail'>, error: any }>} */
const infraStarting = ensureInfra({ quiet: true }).then(
  (infra) => ({ started: /** @type {Array<'kafka'|'s3'|'postgres'|'mail'>} */ (infra.started), error: null }),
  (error) => ({ started: [], error }),
);

async function finish(status) {
  const { started } = await infraStarting;
  if (started.length && process.env.KEEP_INFRA !== '1') {
    await stopInfra({ quiet: true, only: started });
    process.stdout.write(`\nstopped what this run started: ${started.join(', ')} (KEEP_INFRA=1 keeps it running)\n`);
  } else if (started.length) {
    process.stdout.write(`\nleft running (KEEP_INFRA=1): ${started.join(', ')}; npm run infra:stop stops it\n`);
  }
  process.exit(status);
}

/**
 * Runs one command; with `buffered`, its output is held and printed whole when it ends, so that two
 * lanes running at once do not interleave their lines; with `prefix`, each line goes out as it comes,
 * prefixed. Resolves to its exit status.
 */
async function run(label, command, args, { buffered = false, prefix = '', env = process.env } = {}) {
  const started = Date.now();
  if (!buffered) process.stdout.write(`\n== ${label}\n`);
  const chunks = [];
  const piped = buffered || prefix !== '';
  // Asynchronous, so the infrastructure's start and the other lane go on while a check runs.
  const status = await new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: piped ? ['ignore', 'pipe', 'pipe'] : 'inherit', env });
    if (buffered) {
      child.stdout.on('data', (chunk) => chunks.push(chunk));
      child.stderr.on('data', (chunk) => chunks.push(chunk));
    } else if (prefix) {
      for (const stream of [child.stdout, child.stderr]) {
        let partial = '';
        stream.setEncoding('utf8');
        stream.on('data', (text) => {
          const lines = (partial + text).split('\n');
          partial = lines.pop() ?? '';
          if (lines.length > 0) process.stdout.write(lines.map((line) => `${prefix}${line}\n`).join(''));
        });
        stream.on('end', () => partial && process.stdout.write(`${prefix}${partial}\n`));
      }
    }
    child.on('error', () => resolve(1));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  if (buffered) process.stdout.write(`\n== ${label}\n${Buffer.concat(chunks).toString('utf8')}`);
  process.stdout.write(`== ${label}: ${status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return status;
}

/**
 * Integration files that measure time or throughput against limits (rates across replicas, a key's
 * revocation reaching every replica within a second, a quiet tenant's latency beside a noisy one):
 * with two shards they run after them, alone, as the whole suite did before shards.
 */
const SOLO_TESTS = [
  'apps/gateway/src/rpc-scale.e2e.spec.ts',
  'apps/gateway/src/rate-limit-replicas.e2e.spec.ts',
  'apps/gateway/src/public-api/failed-auth-limit.e2e.spec.ts',
  'apps/gateway/src/listen/listen-limit.e2e.spec.ts',
  'apps/webhook-dispatcher/src/e2e/noisy-neighbour.e2e.spec.ts',
];

/** Connections a shard's stack and tests hold at their busiest (the first-run test starts a stack of its own). */
const CONNECTIONS_PER_SHARD = 90;

/**
 * TEST_SHARDS when given; else two when Postgres allows the connections two shards hold at once
 * (Debian's default max_connections of 100 does not), else one.
 */
async function shardCount(adminUrl) {
  if (process.env.TEST_SHARDS) return Math.max(1, Number(process.env.TEST_SHARDS));
  const client = new pg.Client({ connectionString: adminUrl });
  try {
    await client.connect();
    const { rows } = await client.query(`select current_setting('max_connections')::int - (select count(*) from pg_stat_activity)::int as free`);
    if (rows[0].free >= 2 * CONNECTIONS_PER_SHARD) return 2;
    process.stdout.write(
      `\none shard: Postgres has ${rows[0].free} connections free, two shards need ${2 * CONNECTIONS_PER_SHARD} (raise max_connections, or set TEST_SHARDS)\n`,
    );
    return 1;
  } catch {
    return 1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs steps one after another, stopping at the first that fails; resolves to its status. */
async function lane(steps) {
  for (const step of steps) {
    const status = await step();
    if (status !== 0) return status;
  }
  return 0;
}

const bin = (name) => path.join(ROOT, 'node_modules/.bin', name);
// Arguments after `npm test --` go to both Jest runs; a path that only one of them holds is no failure.
const jestArgs = [...process.argv.slice(2), '--passWithNoTests'];
process.env.REDOCLY_TELEMETRY = 'off';
process.env.REDOCLY_SUPPRESS_UPDATE_NOTICE = 'true';
if (await stopRecordedStack('dev')) process.stdout.write('stopped the running dev stack (npm start) first\n');
const DOCUMENT = path.join(ROOT, 'docs/openapi.json');
const documentBefore = fs.existsSync(DOCUMENT) ? fs.readFileSync(DOCUMENT, 'utf8') : '';
// Two lanes at once, one per core, each single-threaded: the compile and the API document (which the
// integration tests need), then the format check; the lint, then, once built (a few unit tests run
// the tools' scripts, which load the built libraries), the unit tests (no stack).
/** The build's exit status, which the unit tests wait for; a lane that stops before the build settles it too. */
let settleBuilt = (_status) => {};
const built = new Promise((resolve) => (settleBuilt = resolve));
const [compiled, linted] = await Promise.all([
  lane([
    () => run('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit'], { buffered: true }),
    () => run("type-check of the tools' scripts", bin('tsc'), ['-p', 'tsconfig.tools.json'], { buffered: true }),
    // The build `npm run build` and `npm start` run: the compile, the API document and the reference renderer.
    async () => {
      const status = await run('build', process.execPath, ['tools/build/build.mjs'], { buffered: true });
      settleBuilt(status);
      return status;
    },
    () => {
      if (fs.readFileSync(DOCUMENT, 'utf8') === documentBefore) return 0;
      process.stdout.write('docs/openapi.json was out of date with the code; the build rewrote it: commit it.\n');
      return 1;
    },
    // Redocly's recommended rules; no network: its telemetry and update check are off (set above).
    () => run('OpenAPI lint', bin('redocly'), ['lint', 'docs/openapi.json', '--format=summary'], { buffered: true }),
    // Everything but what .prettierignore names (build output, generated files, hand-written Markdown).
    () => run('format', bin('prettier'), ['--check', '.'], { buffered: true }),
  ]).then((status) => {
    settleBuilt(status);
    return status;
  }),
  lane([
    () => run('lint', bin('eslint'), ['.'], { buffered: true }),
    () => built,
    () => run('jest: unit tests', bin('jest'), ['--selectProjects', 'unit', '--maxWorkers', '1', ...jestArgs], { buffered: true }),
  ]),
]);
if (compiled !== 0 || linted !== 0) await finish(1);
const infra = await infraStarting;
if (infra.error) {
  process.stdout.write(`\nthe infrastructure did not start: ${infra.error.message ?? infra.error}\n`);
  await finish(1);
}
// The integration and e2e tests in shards at once (two, when Postgres allows: see shardCount): they mostly wait (on
// Kafka, timers, other processes), so two keep both cores busy. Each shard runs its files one at a
// time against a stack of its own: its own ports (500 apart), database and Kafka namespace. What the
// stacks share is made first, so that their setups do not race for it: Chromium and the test CA.
const { TEST_BASE_PORT, TEST_DATABASE, TEST_CERTS_DIR, ADMIN_DATABASE_URL } = await import('./test-env.mjs');
const shards = await shardCount(ADMIN_DATABASE_URL);
const { ensureChromium } = await import('./chromium.mjs');
ensureChromium();
createRequire(import.meta.url)(path.join(ROOT, 'dist/libs/testing/src/test-certificates.js')).testCertificates(TEST_CERTS_DIR);
// A run narrowed to some files (`npm test -- <pattern>`) keeps them in the shards.
const narrowed = process.argv.slice(2).some((arg) => !arg.startsWith('-'));
const solo = shards > 1 && !narrowed ? SOLO_TESTS.map((file) => file.replace(/[.]/g, '\\.')) : [];
const statuses = await Promise.all(
  Array.from({ length: shards }, (_, i) => {
    const shard = `${i + 1}/${shards}`;
    const args = [
      '--selectProjects',
      'integration',
      '--runInBand',
      ...(shards > 1 ? [`--shard=${shard}`, '--testPathIgnorePatterns', '/node_modules/', '/dist/', ...solo] : []),
      ...jestArgs,
    ];
    const env = { ...process.env, TEST_BASE_PORT: String(TEST_BASE_PORT + 500 * i), TEST_DATABASE: i === 0 ? TEST_DATABASE : `${TEST_DATABASE}_${i + 1}` };
    return run(`jest: integration and e2e tests${shards > 1 ? `, shard ${shard}` : ''}`, bin('jest'), args, { prefix: shards > 1 ? `[${shard}] ` : '', env });
  }),
);
if (statuses.some((status) => status !== 0)) await finish(1);
if (solo.length > 0) {
  const args = ['--selectProjects', 'integration', '--runInBand', ...jestArgs, ...solo];
  if ((await run('jest: integration tests that measure time, alone', bin('jest'), args)) !== 0) await finish(1);
}
await finish(0);
