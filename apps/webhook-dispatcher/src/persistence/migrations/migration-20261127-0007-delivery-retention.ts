import { Migration } from '@mikro-orm/migrations';

/** The retention of finished deliveries and public events deletes oldest first by these (ADR 0189). */
export class Migration20261127000700DeliveryRetention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index deliveries_by_age on webhook_dispatcher.deliveries (created_at) where status <> 'pending'`);
    this.addSql(`create index public_events_by_age on webhook_dispatcher.public_events (created_at)`);
  }
}
