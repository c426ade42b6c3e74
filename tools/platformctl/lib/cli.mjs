/**
 * What every command shares: exit codes, errors that carry them, option parsing from a command's
 * declaration, configuration from the environment (as the services read it) with flags on top, and
 * the generated --help.
 */
import { parseArgs } from 'node:util';

export const EXIT = { ok: 0, failure: 1, usage: 2, refused: 3 };

export class CliError extends Error {
  constructor(message, code = EXIT.failure) {
    super(message);
    this.exitCode = code;
  }
}
export const usageError = (message) => new CliError(message, EXIT.usage);
export const refused = (message) => new CliError(message, EXIT.refused);

/** Options every command takes: where the platform is. Flags win over the environment. */
export const GLOBAL_OPTIONS = {
  'database-url': {
    type: 'string',
    env: 'DATABASE_URL',
    default: 'postgres://postgres@127.0.0.1:5432/platform',
    description: 'admin Postgres connection (reads every schema)',
  },
  'kafka-brokers': { type: 'string', env: 'KAFKA_BROKERS', default: '127.0.0.1:9092', description: 'comma-separated Kafka brokers' },
  'kafka-namespace': { type: 'string', env: 'KAFKA_NAMESPACE', default: '', description: 'prefix of every topic and consumer group' },
  'admin-url': { type: 'string', env: 'ADMIN_URL', default: 'http://127.0.0.1:3001/admin/v1', description: 'gateway admin API base URL' },
  'admin-token': { type: 'string', env: 'ADMIN_TOKEN', default: 'dev-admin-token', description: 'admin API bearer token' },
  help: { type: 'boolean', short: 'h', description: 'show this help' },
};

/**
 * Parses argv for one command; unknown options, missing values and missing required ones are usage errors (exit 2).
 * @returns {{ help: boolean, values: Record<string, any>, args: Record<string, string>, config: Record<string, any> }}
 */
export function parseCommandArgs(command, argv) {
  const declared = { ...command.options, ...GLOBAL_OPTIONS };
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(declared).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}) }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError(error.message);
  }
  /** @type {Record<string, any>} strings and booleans as declared, defaults and environment filled in below */
  const values = parsed.values;
  if (values.help) return { help: true, values, args: {}, config: {} };
  const positionals = parsed.positionals;
  const expected = command.positionals ?? [];
  if (positionals.length > expected.length) throw usageError(`unexpected argument: ${positionals[expected.length]}`);
  /** @type {Record<string, string>} */
  const args = {};
  expected.forEach((p, i) => {
    if (positionals[i] === undefined) throw usageError(`missing <${p.name}>`);
    args[p.name] = positionals[i];
  });
  for (const [name, o] of Object.entries(declared)) {
    if (values[name] === undefined && o.env && process.env[o.env] !== undefined) values[name] = process.env[o.env];
    if (values[name] === undefined && o.default !== undefined) values[name] = o.default;
    if (o.required && (values[name] === undefined || values[name] === '')) throw usageError(`--${name} is required`);
    if (o.choices && values[name] !== undefined && !o.choices.includes(values[name])) throw usageError(`--${name} must be one of ${o.choices.join(', ')}`);
    if (o.format === 'time' && values[name] !== undefined && Number.isNaN(Date.parse(values[name]))) throw usageError(`--${name} must be an ISO 8601 time`);
  }
  for (const group of command.oneOf ?? []) {
    const given = group.filter((name) => values[name] !== undefined);
    if (given.length !== 1) throw usageError(`give exactly one of ${group.map((n) => `--${n}`).join(', ')}`);
  }
  const config = {
    databaseUrl: values['database-url'],
    kafkaBrokers: values['kafka-brokers']
      .split(',')
      .map((b) => b.trim())
      .filter(Boolean),
    kafkaNamespace: values['kafka-namespace'],
    adminUrl: values['admin-url'].replace(/\/$/, ''),
    adminToken: values['admin-token'],
  };
  return { help: false, values, args, config };
}

function optionLines(options) {
  return Object.entries(options).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ` <${o.placeholder ?? 'value'}>` : ''}`;
    const notes = [
      o.required ? 'required' : null,
      o.choices ? `one of ${o.choices.join('|')}` : null,
      o.env ? `env ${o.env}` : null,
      o.default !== undefined && o.default !== '' ? `default ${o.default}` : null,
    ].filter(Boolean);
    return `  ${flag.padEnd(34)} ${o.description}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  });
}

export function commandHelp(command) {
  const positionals = (command.positionals ?? []).map((p) => ` <${p.name}>`).join('');
  const lines = [`Usage: platformctl ${command.name.join(' ')}${positionals} [options]`, '', command.summary];
  if (command.description) lines.push('', command.description);
  for (const p of command.positionals ?? []) lines.push('', `  <${p.name}>  ${p.description}`);
  if (command.oneOf) lines.push('', `Give exactly one of: ${command.oneOf.map((g) => g.map((n) => `--${n}`).join(' | ')).join('; ')}.`);
  lines.push('', 'Options:', ...optionLines(command.options), '', 'Connection options:', ...optionLines(GLOBAL_OPTIONS));
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  lines.push('', 'Exit codes: 0 ok, 1 failure, 2 usage error, 3 refused.');
  return lines.join('\n');
}

export function mainHelp(commands) {
  const width = Math.max(...commands.map((c) => c.name.join(' ').length));
  return [
    'Usage: platformctl <command> [options]    (platformctl <command> --help for its options)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.join(' ').padEnd(width)}  ${c.summary}`),
    '',
    'Configuration comes from the environment like the services (DATABASE_URL, KAFKA_BROKERS,',
    'KAFKA_NAMESPACE, ADMIN_URL, ADMIN_TOKEN); flags override it.',
    'Exit codes: 0 ok, 1 failure, 2 usage error, 3 refused (e.g. a consumer group still active).',
  ].join('\n');
}

/** Prefixes the namespace unless the name already carries it. */
export function namespaced(config, name) {
  return name.startsWith(config.kafkaNamespace) ? name : config.kafkaNamespace + name;
}

export function out(line = '') {
  process.stdout.write(line + '\n');
}

/** A plain text table: columns sized to their widest cell. */
export function table(headers, rows) {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells
    .map((r, n) => {
      const line = r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd();
      return n === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

/** Asks on a terminal; anywhere else the caller must have passed --yes. */
export async function confirm(values, question) {
  if (values.yes) return true;
  if (!process.stdin.isTTY) throw usageError('not applied: pass --yes to apply (or --dry-run to only show the plan)');
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
