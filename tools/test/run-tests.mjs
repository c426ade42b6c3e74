/**
 * `npm test`: type-check, lint, build (with the OpenAPI document, which must be committed as built, and
 * its lint), then every Jest test (unit, integration, e2e) against the real
 * Kafka, Postgres and S3Proxy, which are started when missing. A dev stack from `npm start` is
 * stopped first: it shares the Kafka topics and consumer groups with the test stack.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stopRecordedStack } from '../dev/recorded-stack.mjs';
import { ROOT } from '../dev/stack.mjs';

function run(label, command, args) {
  const started = Date.now();
  process.stdout.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  process.stdout.write(`== ${label}: ${result.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const bin = (name) => path.join(ROOT, 'node_modules/.bin', name);
/** What Prettier formats (.prettierrc.json): the TypeScript and the ES module scripts; `npm run format` writes them. */
const FORMATTED = ['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.{ts,mjs}', 'deploy/**/*.ts', 'eslint.config.mjs'];
if (await stopRecordedStack('dev')) process.stdout.write('stopped the running dev stack (npm start) first\n');
run('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
run("type-check of the tools' scripts", bin('tsc'), ['-p', 'tsconfig.tools.json']);
run('lint', bin('eslint'), ['.']);
run('format', bin('prettier'), ['--check', ...FORMATTED]);
const DOCUMENT = path.join(ROOT, 'docs/openapi.json');
const documentBefore = fs.existsSync(DOCUMENT) ? fs.readFileSync(DOCUMENT, 'utf8') : '';
// The build `npm run build` and `npm start` run: the compile, the API document and the reference renderer.
run('build', process.execPath, ['tools/build/build.mjs']);
if (fs.readFileSync(DOCUMENT, 'utf8') !== documentBefore) {
  process.stdout.write('docs/openapi.json was out of date with the code; the build rewrote it: commit it.\n');
  process.exit(1);
}
// Redocly's recommended rules; no network: its telemetry and update check are off.
process.env.REDOCLY_TELEMETRY = 'off';
process.env.REDOCLY_SUPPRESS_UPDATE_NOTICE = 'true';
run('OpenAPI lint', bin('redocly'), ['lint', 'docs/openapi.json', '--format=summary']);
run('jest', bin('jest'), ['--runInBand', ...process.argv.slice(2)]);
