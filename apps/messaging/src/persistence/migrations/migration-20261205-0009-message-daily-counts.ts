import { Migration } from '@mikro-orm/migrations';

/**
 * Each app's messages per UTC day by the status they reached (ADR 0218), kept inline with the
 * events that move them, and counted from the events already stored (the rule of
 * message-counts.rule.ts in SQL: one per MessageSent, MessageDelivered, MessageRead, MessageFailed).
 */
export class Migration20261205000900MessageDailyCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table messaging.message_daily_counts (
      app_id text not null,
      day date not null,
      sent integer not null default 0,
      delivered integer not null default 0,
      read integer not null default 0,
      failed integer not null default 0,
      primary key (app_id, day)
    )`);
    this.addSql(`insert into messaging.message_daily_counts (app_id, day, sent, delivered, read, failed)
      select metadata->>'appId', (occurred_at at time zone 'UTC')::date,
        count(*) filter (where type = 'MessageSent'), count(*) filter (where type = 'MessageDelivered'),
        count(*) filter (where type = 'MessageRead'), count(*) filter (where type = 'MessageFailed')
      from messaging.events
      where type in ('MessageSent', 'MessageDelivered', 'MessageRead', 'MessageFailed') and metadata->>'appId' is not null
      group by 1, 2`);
  }
}
