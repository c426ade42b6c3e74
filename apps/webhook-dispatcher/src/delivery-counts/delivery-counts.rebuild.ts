import { REBUILD_BOUNDS, REBUILD_COUNTS_SQL } from './delivery-counts.sql';

type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/**
 * Rebuilds `delivery_hourly_counts` from the delivery records (deliveries and their attempts, kept 30
 * days: ADR 0189) in one transaction, in place. The table is locked against writers first: a result
 * recorded meanwhile either committed before the lock (its rows are read) or adds its counts after
 * the commit (its rows were not visible): counted once either way. Returns the rows written.
 */
export async function rebuildDeliveryCounts(query: Query): Promise<number> {
  await query('begin');
  try {
    await query('lock table webhook_dispatcher.delivery_hourly_counts in share row exclusive mode');
    await query('delete from webhook_dispatcher.delivery_hourly_counts');
    await query(REBUILD_COUNTS_SQL, [REBUILD_BOUNDS]);
    const [{ n }] = await query<{ n: number }>('select count(*)::int as n from webhook_dispatcher.delivery_hourly_counts');
    await query('commit');
    return n;
  } catch (error) {
    await query('rollback').catch(() => undefined);
    throw error;
  }
}
