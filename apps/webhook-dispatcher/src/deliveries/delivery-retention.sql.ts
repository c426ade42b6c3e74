import type { QueryResult } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ID_PREFIX, idTimeFloor } from '#platform/contracts';
import { pruneHoursStatement } from '../delivery-counts/delivery-counts.sql';

const BATCH = 5000;

/**
 * Deletes finished deliveries created before `deliveriesBefore` with their attempts
 * (WEBHOOKS.recordRetentionMs, ADR 0189), then the public events that happened before
 * `eventsBefore` which no delivery waits for (WEBHOOKS.eventRetentionMs, ADR 0223), a batch per
 * statement, oldest first: event ids sort by when the event happened, so the primary key walks them
 * in that order. A delivery still pending stays (and so does its event). The hourly delivery counts
 * of the deliveries' age go too. Returns the rows deleted per table.
 */
export async function pruneDeliveryRecords(em: EntityManager, cutoffs: { deliveriesBefore: Date; eventsBefore: Date }): Promise<Record<string, number>> {
  const before = cutoffs.deliveriesBefore;
  const pruned = {
    'webhook_dispatcher.deliveries': 0,
    'webhook_dispatcher.delivery_attempts': 0,
    'webhook_dispatcher.public_events': 0,
    'webhook_dispatcher.delivery_hourly_counts': 0,
  };
  for (;;) {
    const [row] = await em.execute<{ deliveries: string; attempts: string }[]>(
      `with gone as (
         delete from webhook_dispatcher.deliveries where delivery_id = any(array(
           select delivery_id from webhook_dispatcher.deliveries where created_at < ? and status <> 'pending' order by created_at limit ?))
         returning delivery_id),
       attempts as (delete from webhook_dispatcher.delivery_attempts a using gone where a.delivery_id = gone.delivery_id returning 1)
       select (select count(*) from gone) as deliveries, (select count(*) from attempts) as attempts`,
      [before, BATCH],
    );
    pruned['webhook_dispatcher.deliveries'] += Number(row.deliveries);
    pruned['webhook_dispatcher.delivery_attempts'] += Number(row.attempts);
    if (Number(row.deliveries) < BATCH) break;
  }
  for (;;) {
    const result = await em.execute<QueryResult>(
      `delete from webhook_dispatcher.public_events e where e.event_id = any(array(
         select event_id from webhook_dispatcher.public_events p where p.event_id < ?
           and not exists (select 1 from webhook_dispatcher.deliveries d where d.event_id = p.event_id and d.status = 'pending')
         order by p.event_id limit ?))`,
      [idTimeFloor(ID_PREFIX.event, cutoffs.eventsBefore.getTime()), BATCH],
      'run',
    );
    pruned['webhook_dispatcher.public_events'] += result.affectedRows;
    if (result.affectedRows < BATCH) break;
  }
  // The hourly counts live as long as the records they can be rebuilt from (ADR 0219).
  for (;;) {
    const { sql, params } = pruneHoursStatement(before, BATCH);
    const result = await em.execute<QueryResult>(sql, params, 'run');
    pruned['webhook_dispatcher.delivery_hourly_counts'] += result.affectedRows;
    if (result.affectedRows < BATCH) break;
  }
  return pruned;
}
