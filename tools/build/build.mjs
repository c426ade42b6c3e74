/**
 * The one build, run by `npm run build`, `npm start` and `npm test`: the TypeScript compile into
 * dist/, then the API document (docs/openapi.json) and the reference page's renderer next to the
 * compiled gateway (write-api-docs.mjs), and production's KafkaUsers from the Kafka access map
 * (write-kafka-users.mjs). Whatever starts the apps builds the same files.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs each step in turn, its output on this process's; the exit status of the first that fails, else 0. */
export function build() {
  /** @type {[string, string[]][]} */
  const steps = [
    [path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json']],
    [process.execPath, [path.join(ROOT, 'tools/build/write-api-docs.mjs')]],
    [process.execPath, [path.join(ROOT, 'tools/build/write-kafka-users.mjs')]],
  ];
  for (const [command, args] of steps) {
    const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
    if (result.status !== 0) return result.status ?? 1;
  }
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(build());
