/**
 * platformctl replay projections --service S [--from-offset N | --from-time T] [--page-size N] [--keep-old] [--dry-run]
 * Rebuilds a service's projections into fresh tables and swaps them in while the service keeps serving
 * (writers wait only during the swap's lock), and reports events/second: from its own event store, or,
 * with --from-offset/--from-time (or for a service without an event store rebuild), from the topics
 * that other services' events arrive on. Runs the compiled code in dist/ (npm run build).
 * Standalone: node tools/platformctl/commands/replay-projections.mjs --service messaging
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { progressBar } from '../lib/progress.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const require = createRequire(import.meta.url);

/** Services whose own event store feeds projections: compiled module and export. */
const STORE_SPECS = {
  messaging: ['dist/apps/messaging/src/messages/message.rebuild.js', 'messagingProjectionRebuild'],
  consent: ['dist/apps/consent/src/consents/consent.rebuild.js', 'consentProjectionRebuild'],
};

/** Services with projections of other services' topics: compiled module, export, and what the spec needs from the environment. */
const TOPIC_SPECS = {
  messaging: ['dist/apps/messaging/src/audience/audience.rebuild.js', 'messagingTopicRebuild', ['APP_USER_ID_SECRET']],
  consent: ['dist/apps/consent/src/user-actions/topic-projections.rebuild.js', 'consentTopicRebuild', ['APP_USER_ID_SECRET']],
  gateway: ['dist/apps/gateway/src/app-status/app-access.rebuild.js', 'gatewayTopicRebuild', []],
};

/**
 * Projections of a service's own records rather than of events (the dispatcher's delivery counts:
 * delivery outcomes are rows, not events, ADR 0219): compiled module and export, rebuilt in place.
 */
const RECORD_SPECS = {
  'webhook-dispatcher': ['dist/apps/webhook-dispatcher/src/delivery-counts/delivery-counts.rebuild.js', 'rebuildDeliveryCounts'],
};

export const SERVICES = [...new Set([...Object.keys(STORE_SPECS), ...Object.keys(TOPIC_SPECS), ...Object.keys(RECORD_SPECS)])];

const help = `Usage: platformctl replay projections --service <${SERVICES.join('|')}> [options]

From the event store (default where the service has one: ${Object.keys(STORE_SPECS).join(', ')}): folds the
service's own events into <schema>_rebuild_<ts>, catches up events appended meanwhile, then swaps
the tables in one short transaction (writers of those tables wait for it).

From the service's records (${Object.keys(RECORD_SPECS).join(', ')}: its delivery counts, from the deliveries
and attempts kept 30 days): rebuilt in place in one transaction that locks the counts against writers.

From topics (--from-offset or --from-time; the default for ${Object.keys(TOPIC_SPECS)
  .filter((s) => !STORE_SPECS[s])
  .join(', ')}): reads
the topics the service's projection consumers follow, with a throwaway consumer group, applies the
live consumers' own handlers to fresh tables, keeps exactly what the live consumers applied (their
inbox says which), then swaps. Events before the start are not replayed: the rebuilt tables hold
only what the topics carry from there (domain topics keep everything, so offset 0 is a full rebuild).

Progress on stderr; the report (JSON) on stdout.

Options:
  --service S         service to rebuild (required)
  --from-offset N     rebuild from topics, every partition from offset N (clamped to the log)
  --from-time T       rebuild from topics, every partition from its first message at or after T (ISO 8601)
  --dry-run           topics only: print the partitions, start and end offsets, and change nothing
  --page-size N       events per read/write transaction (default 10000; topics: 2000)
  --keep-old          keep the replaced tables in <schema>_old_<ts> for a week (the service drops them then; default: dropped at once)
  --lock-timeout MS   give up the swap if the live tables cannot be locked in time (default 5000)

Environment: DATABASE_URL (admin connection to the platform database); for topics also KAFKA_BROKERS,
KAFKA_NAMESPACE and, for messaging and consent, APP_USER_ID_SECRET (appUserIds of users' own messages).
Build with npm run build first.`;

export async function run(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      service: { type: 'string' },
      'page-size': { type: 'string' },
      'keep-old': { type: 'boolean', default: false },
      'lock-timeout': { type: 'string', default: '5000' },
      'from-offset': { type: 'string' },
      'from-time': { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(help);
    return 0;
  }
  const usage = (message) => {
    console.error(`replay projections: ${message}\n\n${help}`);
    return 2;
  };
  if (!SERVICES.includes(values.service)) return usage(`--service must be one of ${SERVICES.join(', ')}`);
  if (values['from-offset'] !== undefined && values['from-time'] !== undefined) return usage('give at most one of --from-offset, --from-time');
  if (values['from-offset'] !== undefined && !/^\d+$/.test(values['from-offset'])) return usage('--from-offset must be a whole number');
  if (values['from-time'] !== undefined && Number.isNaN(Date.parse(values['from-time']))) return usage('--from-time must be an ISO 8601 time');
  const fromRecords = Boolean(RECORD_SPECS[values.service]);
  if (fromRecords && (values['from-offset'] !== undefined || values['from-time'] !== undefined || values['dry-run']))
    return usage(`${values.service} rebuilds from its own records: no --from-offset, --from-time or --dry-run`);
  const fromTopics = !fromRecords && (values['from-offset'] !== undefined || values['from-time'] !== undefined || !STORE_SPECS[values.service]);
  if (fromTopics && !TOPIC_SPECS[values.service]) return usage(`${values.service} has no projections of other services' topics`);
  if (!fromTopics && values['dry-run']) return usage('--dry-run applies to a rebuild from topics');
  if (!process.env.DATABASE_URL) return usage('DATABASE_URL is not set');

  const pg = require('pg');
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'platformctl-replay-projections' });
  /** @type {(sql: string, params?: unknown[]) => Promise<any[]>} */
  const query = async (sql, params) => (await client.query(sql, params)).rows;
  /** The CLI's progress bar, fed the rebuild's running count (which can pass the planned total while it catches up). */
  const progress = (label) => {
    let bar = null;
    let shown = 0;
    return {
      onProgress: values.quiet
        ? undefined
        : (done, total) => {
            bar ??= progressBar(label, total);
            const now = Math.min(done, total);
            bar.tick(now - shown);
            shown = now;
          },
      finish: () => bar?.finish(),
    };
  };
  const common = { keepOld: values['keep-old'], lockTimeoutMs: Number(values['lock-timeout']) };

  await client.connect();
  try {
    if (fromRecords) {
      const [file, name] = RECORD_SPECS[values.service];
      const started = Date.now();
      const rows = await require(path.join(ROOT, file))[name](query);
      const report = { service: values.service, rows, seconds: (Date.now() - started) / 1000 };
      if (!values.quiet) process.stderr.write(`${rows} rows rebuilt in ${report.seconds} s\n`);
      console.log(JSON.stringify(report));
      return 0;
    }
    if (!fromTopics) {
      const { rebuildProjections } = require(path.join(ROOT, 'dist/libs/event-store/src/projection-rebuild.js'));
      const [file, name] = STORE_SPECS[values.service];
      const bar = progress('events');
      const report = await rebuildProjections(client, require(path.join(ROOT, file))[name], {
        ...common,
        pageSize: Number(values['page-size'] ?? 10000),
        onProgress: bar.onProgress,
      });
      bar.finish();
      if (!values.quiet)
        process.stderr.write(`${report.events} events in ${report.seconds} s: ${report.eventsPerSecond} events/s (swap lock ${report.swapLockMs} ms)\n`);
      console.log(JSON.stringify(report));
      return 0;
    }

    const [file, name, needs] = TOPIC_SPECS[values.service];
    const missing = needs.filter((n) => !process.env[n]);
    if (missing.length > 0) return usage(`${missing.join(', ')} must be set for ${values.service}'s topic projections`);
    if (needs.includes('APP_USER_ID_SECRET')) {
      // A wrong secret would rebuild users' windows under appUserIds nobody has: check it against a known pair first.
      const { appUserIdFor } = require(path.join(ROOT, 'dist/libs/contracts/src/index.js'));
      const [known] = await query(`select app_id, app_user_id, user_id from ${values.service}.app_users limit 1`);
      if (known && appUserIdFor(process.env.APP_USER_ID_SECRET, known.app_id, known.user_id) !== known.app_user_id) {
        return usage(`APP_USER_ID_SECRET is not the platform's: it gives another appUserId for user ${known.user_id} of ${known.app_id}`);
      }
    }
    // Topic names read KAFKA_NAMESPACE when the spec is built, so load it only now.
    const spec = require(path.join(ROOT, file))[name](...needs.map((n) => process.env[n]));
    const { rebuildProjectionsFromTopics, planTopicRebuild, describeStart, createKafka } = require(path.join(ROOT, 'dist/libs/kafka/src/index.js'));
    const { kafkaSecurityFromEnv } = require(path.join(ROOT, 'dist/libs/kafka/src/kafka-security.js'));
    const { logLevel } = require('kafkajs');
    // Made as the services' clients are (kafkajs prepared: no idle timer loop, lighter encoding), silent.
    const kafka = createKafka(
      'platformctl-replay-projections',
      (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
      { logLevel: logLevel.NOTHING },
      kafkaSecurityFromEnv(process.env, { production: process.env.NODE_ENV === 'production' }),
    );
    const from =
      values['from-offset'] !== undefined
        ? { kind: 'offset', offset: values['from-offset'] }
        : values['from-time'] !== undefined
          ? { kind: 'time', time: new Date(values['from-time']) }
          : { kind: 'earliest' };
    if (values['dry-run']) {
      const admin = kafka.admin();
      await admin.connect();
      try {
        const partitions = await planTopicRebuild(admin, spec, from);
        const messages = partitions.reduce((n, p) => n + Number(BigInt(p.end) - BigInt(p.start)), 0);
        if (!values.quiet) {
          process.stderr.write(`would rebuild ${spec.tables.map((t) => `${spec.schema}.${t}`).join(', ')} from ${describeStart(from)}: ${messages} messages\n`);
          for (const p of partitions) process.stderr.write(`  ${p.consumer}  ${p.topic}[${p.partition}]  ${p.start} → ${p.end}\n`);
        }
        console.log(
          JSON.stringify({ service: spec.service, source: 'topics', dryRun: true, from: describeStart(from), tables: spec.tables, messages, partitions }),
        );
        return 0;
      } finally {
        await admin.disconnect();
      }
    }
    const bar = progress('messages');
    const report = await rebuildProjectionsFromTopics(query, kafka, spec, {
      ...common,
      from,
      pageSize: Number(values['page-size'] ?? 2000),
      onProgress: bar.onProgress,
    });
    bar.finish();
    if (!values.quiet) {
      process.stderr.write(
        `${report.messages} messages, ${report.events} events applied in ${report.seconds} s: ${report.eventsPerSecond} events/s (swap lock ${report.swapLockMs} ms, ${report.leftToLiveConsumer} left to the live consumers)\n`,
      );
    }
    console.log(JSON.stringify(report));
    return 0;
  } finally {
    await client.end();
  }
}

export const name = 'replay projections';
export const summary = "Rebuild a service's projections from its event store or from topics and swap them in live";
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
