import { Migration } from '@mikro-orm/migrations';

/**
 * What deliveries did per endpoint and UTC hour (ADR 0219): written in the transaction that records
 * the results, in slots so that replicas add to rows of their own; read per app by hour.
 */
export class Migration20261205001200DeliveryHourlyCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table webhook_dispatcher.delivery_hourly_counts (
      endpoint_id text not null,
      hour timestamptz not null,
      slot smallint not null,
      app_id text not null,
      delivered integer not null,
      delivered_first_attempt integer not null,
      failed integer not null,
      attempts integer not null,
      durations integer[] not null,
      last_error text,
      last_error_at timestamptz,
      primary key (endpoint_id, hour, slot)
    )`);
    this.addSql(`create index delivery_hourly_counts_by_app on webhook_dispatcher.delivery_hourly_counts (app_id, hour)`);
    this.addSql(`create index delivery_hourly_counts_by_age on webhook_dispatcher.delivery_hourly_counts (hour)`);
  }
}
