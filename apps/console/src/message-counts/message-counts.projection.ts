import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import { TOPICS } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { EventHandlers } from '#platform/kafka';
import type { PipelinedConsumerSpec } from '#platform/service-kit';
import { COUNTED_EVENT_TYPES, dayCounts, type DayCounts } from './message-counts.rule';

/** Adds the rows' counts to their app's days, in the rows' order (dayCounts sorts them). */
function addDayCountsStatement(rows: DayCounts[]): Statement {
  return {
    sql: `insert into console.message_daily_counts as c (app_id, day, sent, delivered, read, failed)
          select r->>'app_id', (r->>'day')::date, (r->>'sent')::int, (r->>'delivered')::int, (r->>'read')::int, (r->>'failed')::int
          from jsonb_array_elements(?::jsonb) with ordinality as e(r, n)
          order by n
          on conflict (app_id, day) do update set sent = c.sent + excluded.sent, delivered = c.delivered + excluded.delivered,
            read = c.read + excluded.read, failed = c.failed + excluded.failed`,
    params: [JSON.stringify(rows.map((r) => ({ app_id: r.appId, day: r.day, sent: r.sent, delivered: r.delivered, read: r.read, failed: r.failed })))],
  };
}

/** One event's counts, for replays (`platformctl replay projections --service console`), which apply handlers. */
async function countMessage(em: EntityManager, event: DomainEvent): Promise<void> {
  const rows = dayCounts([event]);
  if (rows.length === 0) return;
  const { sql, params } = addDayCountsStatement(rows);
  await em.execute(sql, params);
}

/** The projection's effect per event, for the topic rebuild. */
export const messageCountsHandlers: EventHandlers = Object.fromEntries(COUNTED_EVENT_TYPES.map((type) => [type, countMessage]));

export const MESSAGE_COUNTS_CONSUMER = 'message-counts';

/**
 * Each app's messages per UTC day by status, from messaging.events (ADR 0218). Every send reaches
 * it, so a slice of events costs one transaction and one statement besides its inbox record: the
 * slice's counts are summed per app and day and added at once. One partition at a time (the
 * default); paced to apply more events per transaction, being off the request path.
 */
export const messageCountsConsumer: PipelinedConsumerSpec = {
  name: MESSAGE_COUNTS_CONSUMER,
  topics: [TOPICS.messagingEvents],
  paceMs: 50,
  pipelined: {
    types: COUNTED_EVENT_TYPES,
    read: () => [],
    decide: () => {
      const applied: DomainEvent[] = [];
      const each = (event: DomainEvent): Statement[] => {
        applied.push(event);
        return [];
      };
      return Object.assign(each, {
        finish: (): Statement[] => {
          const rows = dayCounts(applied);
          return rows.length === 0 ? [] : [addDayCountsStatement(rows)];
        },
      });
    },
  },
};

/** An app's counts from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`), days without messages left out. */
export async function messageDailyCounts(
  em: EntityManager,
  appId: string,
  fromDay: string,
  toDay: string,
): Promise<{ day: string; sent: number; delivered: number; read: number; failed: number }[]> {
  return em.execute(
    `select to_char(day, 'YYYY-MM-DD') as day, sent, delivered, read, failed from console.message_daily_counts
      where app_id = ? and day between ?::date and ?::date order by day`,
    [appId, fromDay, toDay],
  );
}
