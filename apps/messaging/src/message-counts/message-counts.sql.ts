import type { DomainEvent } from '#platform/contracts';
import { type Statement } from '#platform/postgres';
import { dayCounts, utcDayOf, type DayCounts } from './message-counts.rule';

/**
 * Adds the rows' counts to their apps' days, in the rows' order (dayCounts sorts them by app and
 * day, so two transactions adding to the same days lock them in one order).
 */
export function addDayCountsStatement(rows: DayCounts[]): Statement {
  return {
    sql: `insert into messaging.message_daily_counts as c (app_id, day, sent, delivered, read, failed)
          select r->>'app_id', (r->>'day')::date, (r->>'sent')::int, (r->>'delivered')::int, (r->>'read')::int, (r->>'failed')::int
          from jsonb_array_elements(?::jsonb) with ordinality as e(r, n)
          order by n
          on conflict (app_id, day) do update set sent = c.sent + excluded.sent, delivered = c.delivered + excluded.delivered,
            read = c.read + excluded.read, failed = c.failed + excluded.failed`,
    params: [JSON.stringify(rows.map((r) => ({ app_id: r.appId, day: r.day, sent: r.sent, delivered: r.delivered, read: r.read, failed: r.failed })))],
  };
}

/** An app's counts from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`), days without messages left out. */
export function dayCountsStatement(appId: string, fromDay: string, toDay: string): Statement {
  return {
    sql: `select to_char(day, 'YYYY-MM-DD') as day, sent, delivered, read, failed from messaging.message_daily_counts
          where app_id = ? and day between ?::date and ?::date order by day`,
    params: [appId, fromDay, toDay],
  };
}

/** What appended events add to their apps' days: one statement for all of them, or none. */
export function messageCountsStatements(events: Pick<DomainEvent, 'type' | 'appId' | 'occurredAt'>[]): Statement[] {
  const rows = dayCounts(events.map((e) => ({ type: e.type, appId: e.appId, day: utcDayOf(e.occurredAt) })));
  return rows.length === 0 ? [] : [addDayCountsStatement(rows)];
}
