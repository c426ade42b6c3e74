/**
 * platformctl replay projections --service S [--page-size N] [--keep-old] [--json]
 * Rebuilds a service's event-store-fed projections into fresh tables from its event store, swaps them in
 * while the service keeps serving (writers wait only during the swap's lock), and reports events/second.
 * Runs the compiled code in dist/ (npm run build). Standalone: node tools/platformctl/commands/replay-projections.mjs --service messaging
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);

/** Services with an event-store rebuild, and the compiled module + export that describes it. */
const SPECS = {
  messaging: ['dist/apps/messaging/src/messages/message.rebuild.js', 'messagingProjectionRebuild'],
};

const help = `Usage: platformctl replay projections --service <${Object.keys(SPECS).join('|')}> [options]

Rebuilds the service's projections from its own event store into <schema>_rebuild_<ts>, catches up
events appended meanwhile, then swaps the tables in one short transaction (writers of those tables
wait for it). Progress on stderr; the report (JSON) on stdout.

Options:
  --service S        service to rebuild (required)
  --page-size N      events per read/write transaction (default 10000)
  --keep-old         keep the replaced tables in <schema>_old_<ts> (default: dropped)
  --lock-timeout MS  give up the swap if the live tables cannot be locked in time (default 5000)
  --from-offset, --from-time   not supported yet: topic-fed projections (see docs/decisions.md)

Environment: DATABASE_URL (admin connection to the platform database; build with npm run build first).`;

export async function run(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: 'string' },
      'page-size': { type: 'string', default: '10000' },
      'keep-old': { type: 'boolean', default: false },
      'lock-timeout': { type: 'string', default: '5000' },
      'from-offset': { type: 'string' },
      'from-time': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  if (values['from-offset'] !== undefined || values['from-time'] !== undefined) {
    console.error('replay projections: --from-offset/--from-time (rebuild from topics) is not implemented; the event-store rebuild needs neither.');
    return 2;
  }
  const entry = SPECS[values.service];
  if (!entry) {
    console.error(`replay projections: --service must be one of ${Object.keys(SPECS).join(', ')}\n\n${help}`);
    return 2;
  }
  if (!process.env.DATABASE_URL) {
    console.error('replay projections: DATABASE_URL is not set');
    return 2;
  }
  require(path.join(ROOT, 'tools/build/register-paths.cjs'));
  const { rebuildProjections } = require(path.join(ROOT, 'dist/libs/event-store/src/projection-rebuild.js'));
  const spec = require(path.join(ROOT, entry[0]))[entry[1]];
  const pg = require('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'platformctl-replay-projections' });
  await client.connect();
  let lastDraw = 0;
  const draw = (done, total) => {
    const now = performance.now();
    if (values.quiet || (now - lastDraw < 100 && done < total)) return;
    lastDraw = now;
    const width = 30;
    const fill = total > 0 ? Math.min(width, Math.round((done / total) * width)) : width;
    process.stderr.write(`\r[${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${done}/${total} events`);
  };
  try {
    const report = await rebuildProjections(client, spec, {
      pageSize: Number(values['page-size']),
      keepOld: values['keep-old'],
      lockTimeoutMs: Number(values['lock-timeout']),
      onProgress: draw,
    });
    if (!values.quiet) process.stderr.write(`\n${report.events} events in ${report.seconds} s: ${report.eventsPerSecond} events/s (swap lock ${report.swapLockMs} ms)\n`);
    console.log(JSON.stringify(report));
    return 0;
  } finally {
    await client.end();
  }
}

export const name = 'replay projections';
export const SERVICES = Object.keys(SPECS);
export const summary = "Rebuild a service's projections from its event store and swap them in live";
export { help };
export default { name, summary, help, run };

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  run(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
