import { run as rebuild, SERVICES } from './replay-projections.mjs';

/**
 * `replay projections` in the CLI's command shape; the rebuild itself lives in
 * replay-projections.mjs, which also runs on its own (the benchmark calls it that way).
 */
export default {
  name: ['replay', 'projections'],
  summary: "Rebuild a service's projections from its event store into fresh tables and swap them in while it keeps serving.",
  description:
    'Reads the event store in position order, folds it into <schema>_rebuild_<ts>, catches up events appended meanwhile, then swaps the tables in one short transaction (writers of those tables wait a few ms). Reports events per second. Needs npm run build. Projections fed from other services\' topics (--from-offset/--from-time) are not rebuilt yet.',
  options: {
    service: { type: 'string', required: true, choices: SERVICES, placeholder: 'service', description: 'service whose projections to rebuild' },
    'page-size': { type: 'string', default: '10000', placeholder: 'n', description: 'events per read/write transaction' },
    'keep-old': { type: 'boolean', description: 'keep the replaced tables in <schema>_old_<ts>' },
    'lock-timeout': { type: 'string', default: '5000', placeholder: 'ms', description: 'give up the swap if the live tables cannot be locked in time' },
    quiet: { type: 'boolean', description: 'no progress bar' },
    'from-offset': { type: 'string', placeholder: 'offset', description: 'not supported yet (topic-fed projections)' },
    'from-time': { type: 'string', placeholder: 'ISO time', description: 'not supported yet (topic-fed projections)' },
  },
  examples: ['platformctl replay projections --service messaging'],
  async run({ values, config }) {
    process.env.DATABASE_URL = config.databaseUrl;
    const argv = ['--service', values.service, '--page-size', values['page-size'], '--lock-timeout', values['lock-timeout']];
    if (values['keep-old']) argv.push('--keep-old');
    if (values.quiet) argv.push('--quiet');
    for (const name of ['from-offset', 'from-time']) if (values[name] !== undefined) argv.push(`--${name}`, values[name]);
    return rebuild(argv);
  },
};
