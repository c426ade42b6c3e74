import { run as rebuild, SERVICES } from './replay-projections.mjs';

/**
 * `replay projections` in the CLI's command shape; the rebuild itself lives in
 * replay-projections.mjs, which also runs on its own (the benchmark calls it that way).
 */
export default {
  name: ['replay', 'projections'],
  summary: "Rebuild a service's projections from its event store or from topics into fresh tables and swap them in while it keeps serving.",
  description:
    "From the event store (messaging's messages and daily counts; consent's consents, versions, app users and testers): reads events in position order, folds them into <schema>_rebuild_<ts>, catches up events appended meanwhile, then swaps the tables in one short transaction (writers of those tables wait a few ms). From topics (--from-offset/--from-time, the default for services without an event store rebuild): replays the topics the service's projection consumers follow with a throwaway consumer group, keeping exactly what the live consumers applied (their inbox), then swaps. Reports events per second. Needs npm run build.",
  options: {
    service: { type: 'string', required: true, choices: SERVICES, placeholder: 'service', description: 'service whose projections to rebuild' },
    'from-offset': { type: 'string', placeholder: 'offset', description: 'rebuild from topics, every partition from this offset (0: everything)' },
    'from-time': {
      type: 'string',
      placeholder: 'ISO time',
      format: 'time',
      description: 'rebuild from topics, every partition from its first message at or after this time',
    },
    'dry-run': { type: 'boolean', description: 'topics only: show partitions and offsets, change nothing' },
    'page-size': { type: 'string', placeholder: 'n', description: 'events per write transaction (default 10000 from the store, 2000 from topics)' },
    'keep-old': { type: 'boolean', description: 'keep the replaced tables in <schema>_old_<ts>' },
    'lock-timeout': { type: 'string', default: '5000', placeholder: 'ms', description: 'give up the swap if the live tables cannot be locked in time' },
    'app-user-id-secret': {
      type: 'string',
      env: 'APP_USER_ID_SECRET',
      placeholder: 'secret',
      description: "messaging and consent from topics: the platform's appUserId secret",
    },
    quiet: { type: 'boolean', description: 'no progress bar' },
  },
  examples: [
    'platformctl replay projections --service messaging',
    'platformctl replay projections --service messaging --from-offset 0',
    'platformctl replay projections --service gateway --from-time 2026-11-01T00:00:00Z --dry-run',
  ],
  async run({ values, config }) {
    process.env.DATABASE_URL = config.databaseUrl;
    process.env.KAFKA_BROKERS = config.kafkaBrokers.join(',');
    process.env.KAFKA_NAMESPACE = config.kafkaNamespace;
    if (values['app-user-id-secret'] !== undefined) process.env.APP_USER_ID_SECRET = values['app-user-id-secret'];
    const argv = ['--service', values.service, '--lock-timeout', values['lock-timeout']];
    for (const name of ['from-offset', 'from-time', 'page-size']) if (values[name] !== undefined) argv.push(`--${name}`, values[name]);
    for (const name of ['keep-old', 'dry-run', 'quiet']) if (values[name]) argv.push(`--${name}`);
    return rebuild(argv);
  },
};
