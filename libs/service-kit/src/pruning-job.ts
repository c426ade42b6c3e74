import type { EntityManager } from '@mikro-orm/postgresql';
import type { Counter } from 'prom-client';
import type { Clock } from '#platform/clock';
import { deleteExpiredTables, type TableRetention } from '#platform/postgres';
import { BackgroundJob } from './background-job';

export type { TableRetention } from '#platform/postgres';

/** Counts what a prune removed from `table` (rows, or schemas dropped) in `rows_pruned_total`. */
export type CountPruned = (table: string, rows: number) => void;

/**
 * A job that removes what is past its retention, counting it by table in `pruned`
 * (`rows_pruned_total`) as it goes. Start it with `job.start(everyMs, clock)`: it also runs whenever
 * the test clock jumps, and a failing run is logged and tried again at the next (BackgroundJob).
 */
export function pruningJob(args: { name: string; prune: (count: CountPruned) => Promise<void>; pruned: Counter<'table'> }): BackgroundJob {
  return new BackgroundJob(args.name, () => args.prune((table, rows) => args.pruned.inc({ table }, rows)));
}

/** The tables' rows past their retention by the service's clock, oldest first in batches (deleteExpiredTables). */
export function retentionJob(args: {
  name: string;
  tables: readonly TableRetention[];
  em: () => EntityManager;
  clock: Clock;
  pruned: Counter<'table'>;
}): BackgroundJob {
  return pruningJob({ name: args.name, pruned: args.pruned, prune: (count) => deleteExpiredTables(args.em, args.tables, args.clock.nowMs(), count) });
}
