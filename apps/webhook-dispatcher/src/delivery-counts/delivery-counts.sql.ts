import type { Statement } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';
import { DURATION_BOUNDS_MS, type HourCounts } from './delivery-counts.rule';

/** The statements of the delivery counts: the upsert both writers use, the reads, the rebuild and the pruning. */

/** A Postgres array literal (MikroORM's execute would spread a JavaScript array into a list of parameters). */
function pgArray(values: (string | number | null)[]): string {
  return `{${values.map((v) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`)).join(',')}}`;
}

/**
 * Adds counts to their rows of `slot`, in the order given (countOutcomes sorts them, so locks are
 * taken in one order). `$n` placeholders for a pg client, `?` for MikroORM's execute.
 */
export function addCountsStatement(counts: HourCounts[], slot: number, placeholders: '$n' | '?'): Statement | null {
  if (counts.length === 0) return null;
  const p = (n: number) => (placeholders === '?' ? '?' : `$${n}`);
  return {
    sql: `insert into webhook_dispatcher.delivery_hourly_counts as c
            (endpoint_id, hour, slot, app_id, delivered, delivered_first_attempt, failed, attempts, durations, last_error, last_error_at)
          select k.endpoint_id, k.hour, ${p(1)}::smallint, k.app_id, k.delivered, k.first, k.failed, k.attempts, string_to_array(k.durations, ',')::int[], k.last_error, k.last_error_at
            from unnest(${p(2)}::text[], ${p(3)}::timestamptz[], ${p(4)}::text[], ${p(5)}::int[], ${p(6)}::int[], ${p(7)}::int[], ${p(8)}::int[], ${p(9)}::text[], ${p(10)}::text[], ${p(11)}::timestamptz[])
              with ordinality as k(endpoint_id, hour, app_id, delivered, first, failed, attempts, durations, last_error, last_error_at, n)
           order by k.n
          on conflict (endpoint_id, hour, slot) do update set
            delivered = c.delivered + excluded.delivered,
            delivered_first_attempt = c.delivered_first_attempt + excluded.delivered_first_attempt,
            failed = c.failed + excluded.failed,
            attempts = c.attempts + excluded.attempts,
            durations = array(select a + b from unnest(c.durations, excluded.durations) as d(a, b)),
            last_error = case when excluded.last_error_at is not null and (c.last_error_at is null or excluded.last_error_at >= c.last_error_at)
                              then excluded.last_error else c.last_error end,
            last_error_at = greatest(c.last_error_at, excluded.last_error_at)`,
    params: [
      slot,
      pgArray(counts.map((c) => c.endpointId)),
      pgArray(counts.map((c) => c.hour)),
      pgArray(counts.map((c) => c.appId)),
      pgArray(counts.map((c) => c.delivered)),
      pgArray(counts.map((c) => c.deliveredFirstAttempt)),
      pgArray(counts.map((c) => c.failed)),
      pgArray(counts.map((c) => c.attempts)),
      pgArray(counts.map((c) => c.durations.join(','))),
      pgArray(counts.map((c) => c.lastError?.error ?? null)),
      pgArray(counts.map((c) => c.lastError?.at ?? null)),
    ],
  };
}

export interface HourCountsRow {
  app_id: string;
  endpoint_id: string;
  hour: DbTimestamp;
  delivered: number;
  delivered_first_attempt: number;
  failed: number;
  attempts: number;
  durations: number[];
  last_error: string | null;
  last_error_at: DbTimestamp | null;
}

export const hourCounts = (r: HourCountsRow): HourCounts => ({
  appId: r.app_id,
  endpointId: r.endpoint_id,
  hour: new Date(r.hour).toISOString(),
  delivered: r.delivered,
  deliveredFirstAttempt: r.delivered_first_attempt,
  failed: r.failed,
  attempts: r.attempts,
  durations: r.durations,
  lastError: r.last_error !== null && r.last_error_at !== null ? { at: new Date(r.last_error_at).toISOString(), error: r.last_error } : null,
});

/** An app's hour rows (every slot) from `from` (inclusive) to `to` (exclusive), by the (app_id, hour) index. */
export function appHoursStatement(appId: string, from: Date, to: Date): Statement {
  return {
    sql: `select app_id, endpoint_id, hour, delivered, delivered_first_attempt, failed, attempts, durations, last_error, last_error_at
            from webhook_dispatcher.delivery_hourly_counts where app_id = ? and hour >= ? and hour < ?`,
    params: [appId, from, to],
  };
}

/** An app's delivery outcomes summed per hour (every endpoint and slot), for the daily chart: at most 24 rows a day. */
export function appOutcomesPerHourStatement(appId: string, from: Date, to: Date): Statement {
  return {
    sql: `select hour, sum(delivered)::int as delivered, sum(delivered_first_attempt)::int as delivered_first_attempt, sum(failed)::int as failed
            from webhook_dispatcher.delivery_hourly_counts where app_id = ? and hour >= ? and hour < ? group by hour`,
    params: [appId, from, to],
  };
}

/**
 * The counts as the delivery records say they are (slot 0), by the rules of delivery-counts.rule.ts
 * written in SQL: a delivery in the hour of its `delivered_at` or `failed_at` (first attempt:
 * `attempts = 1`), each recorded request but held ones in the hour it finished and its duration's
 * bucket (the bounds are a parameter), the hour's last error that of its latest failed request.
 */
export const REBUILD_COUNTS_SQL = `
with outcomes as (
  select app_id, endpoint_id, date_trunc('hour', coalesce(delivered_at, failed_at), 'UTC') as hour,
         count(*) filter (where status = 'delivered')::int as delivered,
         count(*) filter (where status = 'delivered' and attempts = 1)::int as first,
         count(*) filter (where status = 'failed')::int as failed
    from webhook_dispatcher.deliveries where status <> 'pending' group by 1, 2, 3
), requests as (
  select d.app_id, d.endpoint_id, date_trunc('hour', a.finished_at, 'UTC') as hour, a.finished_at, a.error,
         (select count(*) from unnest($1::int[]) as bound where bound < a.duration_ms)::int as bucket
    from webhook_dispatcher.delivery_attempts a join webhook_dispatcher.deliveries d using (delivery_id) where a.outcome <> 'held'
), buckets as (
  select endpoint_id, hour, bucket, count(*)::int as n from requests group by 1, 2, 3
), sent as (
  select app_id, endpoint_id, hour, count(*)::int as attempts,
         (array_agg(error order by finished_at desc) filter (where error is not null))[1] as last_error,
         max(finished_at) filter (where error is not null) as last_error_at
    from requests group by 1, 2, 3
), histograms as (
  select s.endpoint_id, s.hour, array_agg(coalesce(b.n, 0) order by i.i) as durations
    from sent s cross join generate_series(0, cardinality($1::int[])) as i(i)
    left join buckets b on b.endpoint_id = s.endpoint_id and b.hour = s.hour and b.bucket = i.i
   group by 1, 2
)
insert into webhook_dispatcher.delivery_hourly_counts
  (endpoint_id, hour, slot, app_id, delivered, delivered_first_attempt, failed, attempts, durations, last_error, last_error_at)
select coalesce(o.endpoint_id, s.endpoint_id), coalesce(o.hour, s.hour), 0, coalesce(o.app_id, s.app_id),
       coalesce(o.delivered, 0), coalesce(o.first, 0), coalesce(o.failed, 0), coalesce(s.attempts, 0),
       coalesce(h.durations, array_fill(0, array[cardinality($1::int[]) + 1])), s.last_error, s.last_error_at
  from outcomes o full join sent s on s.endpoint_id = o.endpoint_id and s.hour = o.hour
  left join histograms h on h.endpoint_id = s.endpoint_id and h.hour = s.hour
 order by 1, 2`;

export const REBUILD_BOUNDS = [...DURATION_BOUNDS_MS];

/** Deletes hour rows older than `before`, a batch at a time; the pruner repeats it while it deletes a full batch. */
export function pruneHoursStatement(before: Date, batch: number): Statement {
  return {
    sql: `delete from webhook_dispatcher.delivery_hourly_counts c where (c.endpoint_id, c.hour, c.slot) in (
            select endpoint_id, hour, slot from webhook_dispatcher.delivery_hourly_counts where hour < ? order by hour limit ?)`,
    params: [before, batch],
  };
}
