import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';

/** The event-sourcing tables (events, outbox, inbox, dead_letters); domain tables come with later migrations. */
export class Migration20261122000100MediaInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('media')) this.addSql(sql);
  }
}
