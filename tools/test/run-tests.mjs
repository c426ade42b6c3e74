/**
 * `npm test`: type-check, lint, build (with the OpenAPI document, which must be committed as built, and
 * its lint), then every Jest test (unit, integration, e2e) against the real
 * Kafka, Postgres and S3Proxy, which are started when missing. A dev stack from `npm start` is
 * stopped first: it shares the Kafka topics and consumer groups with the test stack. Missing
 * infrastructure starts while the checks run, and what this run started is stopped at its end, pass or
 * fail, unless `KEEP_INFRA=1`; what was running before is left running.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
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

async function run(label, command, args) {
  const started = Date.now();
  process.stdout.write(`\n== ${label}\n`);
  // Asynchronous, so the infrastructure's start goes on while a check runs.
  const status = await new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
    child.on('error', () => resolve(1));
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  process.stdout.write(`== ${label}: ${status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (status !== 0) await finish(status);
}

const bin = (name) => path.join(ROOT, 'node_modules/.bin', name);
if (await stopRecordedStack('dev')) process.stdout.write('stopped the running dev stack (npm start) first\n');
await run('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
await run("type-check of the tools' scripts", bin('tsc'), ['-p', 'tsconfig.tools.json']);
await run('lint', bin('eslint'), ['.']);
// Everything but what .prettierignore names (build output, generated files, hand-written Markdown).
await run('format', bin('prettier'), ['--check', '.']);
const DOCUMENT = path.join(ROOT, 'docs/openapi.json');
const documentBefore = fs.existsSync(DOCUMENT) ? fs.readFileSync(DOCUMENT, 'utf8') : '';
// The build `npm run build` and `npm start` run: the compile, the API document and the reference renderer.
await run('build', process.execPath, ['tools/build/build.mjs']);
if (fs.readFileSync(DOCUMENT, 'utf8') !== documentBefore) {
  process.stdout.write('docs/openapi.json was out of date with the code; the build rewrote it: commit it.\n');
  await finish(1);
}
// Redocly's recommended rules; no network: its telemetry and update check are off.
process.env.REDOCLY_TELEMETRY = 'off';
process.env.REDOCLY_SUPPRESS_UPDATE_NOTICE = 'true';
await run('OpenAPI lint', bin('redocly'), ['lint', 'docs/openapi.json', '--format=summary']);
const infra = await infraStarting;
if (infra.error) {
  process.stdout.write(`\nthe infrastructure did not start: ${infra.error.message ?? infra.error}\n`);
  await finish(1);
}
await run('jest', bin('jest'), ['--runInBand', ...process.argv.slice(2)]);
await finish(0);
