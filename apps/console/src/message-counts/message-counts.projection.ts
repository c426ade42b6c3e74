import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import { TOPICS } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';
import { countedStatus } from './message-counts.rule';

/** Adds one to the event's app, day and status (message-counts.rule.ts); the inbox makes it once per event. */
async function countMessage(em: EntityManager, event: DomainEvent): Promise<void> {
  const counted = countedStatus(event);
  if (!counted) return;
  // The column comes from the rule's closed list, never from the event.
  const column = { sent: 'sent', delivered: 'delivered', read: 'read', failed: 'failed' }[counted.status];
  await em.execute(
    `insert into console.message_daily_counts as c (app_id, day, ${column}) values (?, ?, 1)
     on conflict (app_id, day) do update set ${column} = c.${column} + 1`,
    [counted.appId, counted.day],
  );
}

/**
 * Each app's messages per UTC day by status, from messaging.events (ADR 0218). One partition at a
 * time (the default), so two transactions never add to one app's day at once; off the request path,
 * so it paces its fetches to apply more events per transaction.
 */
export const messageCountsConsumer = {
  name: 'message-counts',
  topics: [TOPICS.messagingEvents],
  paceMs: 10,
  handlers: {
    MessageSent: countMessage,
    MessageDelivered: countMessage,
    MessageRead: countMessage,
    MessageFailed: countMessage,
  },
} satisfies ConsumerSpec;

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
