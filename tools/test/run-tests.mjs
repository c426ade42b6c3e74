/**
 * `npm test`: type-check, lint, build, then every Jest test (unit, integration, e2e) against the real
 * Kafka, Postgres and S3Proxy, which are started when missing. A dev stack from `npm start` is
 * stopped first: it shares the Kafka topics and consumer groups with the test stack.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, stopRecordedStack } from '../dev/stack.mjs';

function run(label, command, args) {
  const started = Date.now();
  process.stdout.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: process.env });
  process.stdout.write(`== ${label}: ${result.status === 0 ? 'ok' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const bin = (name) => path.join(ROOT, 'node_modules/.bin', name);
if (await stopRecordedStack('dev')) process.stdout.write('stopped the running dev stack (npm start) first\n');
run('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
run('lint', bin('eslint'), ['.']);
run('build', bin('tsc'), ['-p', 'tsconfig.build.json']);
run('jest', bin('jest'), ['--runInBand', ...process.argv.slice(2)]);
