import type { EntityManager } from '@mikro-orm/postgresql';
import type { Counter } from 'prom-client';
import type { Clock } from '#platform/clock';
import { quoteIdent } from '#platform/event-store';
import { DEFAULT_DEDUPE_WINDOW_MS } from '#platform/kafka';
import type { BackgroundJob } from './background-job';
import { pruningJob, retentionJob } from './pruning-job';

/** Dead letters are kept a month for inspection and `platformctl` redrives, then go. */
export const DEAD_LETTER_RETENTION_MS = 30 * 24 * 3600 * 1000;

/**
 * What every service's consumers keep to apply each event once, kept bounded
 * (docs/adr/0190-bounded-inbox-offsets-and-window.md): inbox rows for the dedupe window (the applied
 * offsets answer for anything older), dead letters for 30 days, each counted in
 * `rows_pruned_total{table}`.
 */
export function inboxRetentionJob(args: { schema: string; em: () => EntityManager; clock: Clock; pruned: Counter<'table'> }): BackgroundJob {
  const s = quoteIdent(args.schema);
  return retentionJob({
    ...args,
    name: 'pruning inbox and dead letters',
    tables: [
      { table: `${s}.inbox`, label: `${args.schema}.inbox`, column: 'processed_at', keepMs: DEFAULT_DEDUPE_WINDOW_MS },
      { table: `${s}.dead_letters`, label: `${args.schema}.dead_letters`, column: 'created_at', keepMs: DEAD_LETTER_RETENTION_MS },
    ],
  });
}

/** Tables a rebuild replaced and the operator kept (`--keep-old`) stay a week, then their schema goes. */
export const REBUILD_LEFTOVER_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * Drops the service's kept rebuild leftovers (`<schema>_old_<ms>`, owned by the service's role; ADR 0189) a week
 * after the rebuild, counting each schema in `rows_pruned_total{table="<schema>_old"}`. Their names
 * carry the operator's wall-clock time, so age is measured by the wall clock, not the service's.
 */
export function rebuildLeftoversJob(args: { schema: string; em: () => EntityManager; pruned: Counter<'table'>; nowMs?: () => number }): BackgroundJob {
  const prefix = `${args.schema}_old_`;
  return pruningJob({
    name: 'dropping kept rebuild leftovers',
    pruned: args.pruned,
    prune: async (count) => {
      const now = (args.nowMs ?? Date.now)();
      const kept: { name: string }[] = await args
        .em()
        .execute(
          `select nspname as name from pg_namespace where starts_with(nspname, ?) and nspowner = (select oid from pg_roles where rolname = current_user)`,
          [prefix],
        );
      for (const { name } of kept) {
        const at = Number(name.slice(prefix.length));
        if (!Number.isSafeInteger(at) || now - at < REBUILD_LEFTOVER_RETENTION_MS) continue;
        await args.em().execute(`drop schema ${quoteIdent(name)} cascade`);
        count(`${args.schema}_old`, 1);
      }
    },
  });
}
