import type { EntityManager } from '@mikro-orm/postgresql';
import type { Counter } from 'prom-client';
import type { Clock } from '#platform/clock';
import { quoteIdent } from '#platform/event-store';
import { DEFAULT_DEDUPE_WINDOW_MS } from '#platform/kafka';
import { deleteExpiredRows } from '#platform/postgres';
import { BackgroundJob } from './background-job';

/** Dead letters are kept a month for inspection and `platformctl` redrives, then go. */
export const DEAD_LETTER_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * What every service's consumers keep to apply each event once, kept bounded
 * (docs/adr/0190-bounded-inbox-offsets-and-window.md): inbox rows for the dedupe window (the applied
 * offsets answer for anything older), dead letters for 30 days. Every ten minutes and whenever the
 * test clock jumps; each deleted row counts in `rows_pruned_total{table}`.
 */
export function inboxRetentionJob(args: { schema: string; em: () => EntityManager; clock: Clock; pruned: Counter<'table'> }): BackgroundJob {
  const s = quoteIdent(args.schema);
  const tables = [
    { table: `${s}.inbox`, label: `${args.schema}.inbox`, column: 'processed_at', keepMs: DEFAULT_DEDUPE_WINDOW_MS },
    { table: `${s}.dead_letters`, label: `${args.schema}.dead_letters`, column: 'created_at', keepMs: DEAD_LETTER_RETENTION_MS },
  ];
  return new BackgroundJob('pruning inbox and dead letters', async () => {
    const now = args.clock.nowMs();
    for (const { table, label, column, keepMs } of tables) {
      args.pruned.inc({ table: label }, await deleteExpiredRows(args.em(), { table, column, before: new Date(now - keepMs) }));
    }
  });
}
