/**
 * Records how long each integration and e2e file took, for the shard sequencer
 * (tools/test/shard-sequencer.js): reads the output of `npm test` (or of one Jest run) on stdin,
 * keeps the files Jest reported as slow (`PASS integration <path> (N s)`), and rewrites
 * tools/test/test-durations.json with them, the rest of the file kept as it was.
 * Usage: npm test 2>&1 | tee run.log; node tools/test/record-test-durations.mjs < run.log
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'test-durations.json');
const known = JSON.parse(readFileSync(FILE, 'utf8'));
const input = readFileSync(0, 'utf8');
let recorded = 0;
for (const match of input.matchAll(/(?:PASS|FAIL) integration (\S+) \((\d+(?:\.\d+)?) s\)/g)) {
  known.seconds[match[1]] = Math.round(Number(match[2]));
  recorded += 1;
}
known.seconds = Object.fromEntries(Object.entries(known.seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(FILE, `${JSON.stringify(known, null, 2)}\n`);
process.stdout.write(`recorded ${recorded} files' durations in ${path.relative(process.cwd(), FILE)}\n`);
