import { Pruner } from '#platform/service-kit';
import { SIGN_IN_WINDOW_MS } from '../sign-in/sign-in.decider';

const DAY_MS = 24 * 3600 * 1000;

/**
 * How long the console keeps what grows with people's visits (docs/adr/0189-retention.md):
 * nothing past the moment it can no longer change an answer. A sent email's row stays 30 days so a
 * redriven event of that age finds its Message-ID taken and sends nothing twice.
 */
export const CONSOLE_RETENTION = [
  { table: 'console.sign_in_clients', column: 'window_started_at', keepMs: SIGN_IN_WINDOW_MS },
  // Written only by replicas of the previous image while they roll (migration 0007).
  { table: 'console.sign_in_requests', column: 'at', keepMs: SIGN_IN_WINDOW_MS },
  { table: 'console.sign_in_links', column: 'expires_at', keepMs: 0 },
  { table: 'console.sessions', column: 'expires_at', keepMs: 0 },
  { table: 'console.invitations', column: 'expires_at', keepMs: 0 },
  { table: 'console.mail_outbox', column: 'sent_at', keepMs: 30 * DAY_MS },
] as const;

/** Deletes the rows past their retention every ten minutes and whenever the test clock jumps. */
export class ConsoleRetentionPruner extends Pruner({ name: 'pruning expired console rows', everyMs: 10 * 60 * 1000, tables: CONSOLE_RETENTION }) {}
