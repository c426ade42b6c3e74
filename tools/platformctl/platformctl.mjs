#!/usr/bin/env node
/**
 * platformctl: the operators' CLI (replays, redrives, redeliveries, traces, and the quick start's
 * admin calls). `platformctl --help` lists the commands; `platformctl <command> --help` shows one.
 * Exit codes: 0 ok, 1 failure, 2 usage error, 3 refused.
 */
import { COMMANDS } from './commands/index.mjs';
import { commandHelp, EXIT, mainHelp, parseCommandArgs } from './lib/cli.mjs';

/** The command whose name words start argv (longest match), and the rest of argv. */
function findCommand(argv) {
  let best = null;
  for (const command of COMMANDS) {
    if (command.name.every((word, i) => argv[i] === word) && (!best || command.name.length > best.name.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.name.length) } : null;
}

async function main(argv) {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(mainHelp(COMMANDS) + '\n');
    return argv.length === 0 ? EXIT.usage : EXIT.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    const words = argv.filter((a) => !a.startsWith('-')).join(' ');
    const near = COMMANDS.filter((c) => c.name[0] === argv[0]).map((c) => `  platformctl ${c.name.join(' ')}`);
    process.stderr.write(
      `platformctl: unknown command "${words}"\n${near.length ? `Did you mean:\n${near.join('\n')}\n` : ''}Run platformctl --help for the list.\n`,
    );
    return EXIT.usage;
  }
  const { command, rest } = found;
  let parsed;
  try {
    parsed = parseCommandArgs(command, rest);
  } catch (error) {
    if (error.exitCode !== EXIT.usage) throw error;
    process.stderr.write(`platformctl ${command.name.join(' ')}: ${error.message}\nRun platformctl ${command.name.join(' ')} --help for its options.\n`);
    return EXIT.usage;
  }
  if (parsed.help) {
    process.stdout.write(commandHelp(command) + '\n');
    return EXIT.ok;
  }
  const code = await command.run(parsed);
  return code ?? EXIT.ok;
}

main(process.argv.slice(2)).then(
  (code) => exit(code),
  (error) => {
    process.stderr.write(`platformctl: ${error.exitCode !== undefined ? error.message : (error.stack ?? error)}\n`);
    exit(error.exitCode ?? EXIT.failure);
  },
);

/** Exits when the output is flushed; a client library's lingering socket cannot keep the process alive. */
function exit(code) {
  process.exitCode = code;
  setTimeout(() => process.exit(code), 1000).unref();
}
