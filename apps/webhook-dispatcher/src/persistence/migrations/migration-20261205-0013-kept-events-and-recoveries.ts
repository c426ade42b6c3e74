import { Migration } from '@mikro-orm/migrations';

/**
 * Every public event is kept 30 days for GET /events, its payload too (ADR 0223): one index serves
 * the list, per app and type newest first (a list of every type merges the types' ranges). Payloads
 * are no longer dropped at 7 days and records are pruned by their time-ordered ids, so the indexes
 * that found them by age go. Endpoint recoveries (ADR 0224): the latest of each endpoint, and which
 * deliveries a recovery made, indexed only while pending (what "in progress" asks).
 */
export class Migration20261205001300KeptEventsAndRecoveries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index public_events_by_app_type on webhook_dispatcher.public_events (app_id, type, event_id)`);
    this.addSql(`drop index webhook_dispatcher.public_events_retention_idx`);
    this.addSql(`drop index webhook_dispatcher.public_events_by_age`);
    this.addSql(`alter table webhook_dispatcher.deliveries add column recovery_id text`);
    this.addSql(`create index deliveries_recovery_pending on webhook_dispatcher.deliveries (recovery_id) where status = 'pending' and recovery_id is not null`);
    this.addSql(`create table webhook_dispatcher.endpoint_recoveries (
      endpoint_id text primary key,
      recovery_id text not null,
      app_id text not null,
      since timestamptz not null,
      until timestamptz not null,
      event_types text[] not null,
      recovered integer not null default 0,
      started_at timestamptz not null,
      progressed_at timestamptz not null,
      finished_at timestamptz
    )`);
  }
}
