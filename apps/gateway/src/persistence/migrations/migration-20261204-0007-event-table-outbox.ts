import { Migration } from '@mikro-orm/migrations';
import { eventTableOutboxSql } from '#platform/event-store';

/** The event table becomes the outbox (docs/adr/0213-the-event-table-is-the-outbox.md). */
export class Migration20261204000700GatewayEventTableOutbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventTableOutboxSql('gateway')) this.addSql(sql);
  }
}
