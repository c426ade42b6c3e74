/**
 * Every platformctl command, one module each (tools/platformctl/commands/<name>.mjs). A command is
 * `{ name: [words…], summary, description?, options, positionals?, oneOf?, examples?, run(ctx) }`
 * where run returns an exit code (lib/cli.mjs EXIT) or throws a CliError. Add a command by adding
 * its file and one line to this list.
 */
import devAppCreate from './dev-app-create.mjs';
import devKeyCreate from './dev-key-create.mjs';
import devOrgCreate from './dev-org-create.mjs';
import devUserCreate from './dev-user-create.mjs';
import devUserMessage from './dev-user-message.mjs';
import listen from './listen.mjs';
import outboxRedrive from './outbox-redrive.mjs';
import replayProjections from './replay-projections-command.mjs';
import replayTopic from './replay-topic.mjs';
import secretsRotateKey from './secrets-rotate-key.mjs';
import traceMessage from './trace-message.mjs';
import webhooksRedeliver from './webhooks-redeliver.mjs';

export const COMMANDS = [
  replayProjections,
  replayTopic,
  outboxRedrive,
  webhooksRedeliver,
  traceMessage,
  secretsRotateKey,
  listen,
  devOrgCreate,
  devAppCreate,
  devKeyCreate,
  devUserCreate,
  devUserMessage,
];
