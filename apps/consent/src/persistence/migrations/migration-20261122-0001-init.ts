import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';

/** The event-sourcing tables (events, outbox, inbox, dead_letters); domain tables come with later migrations. */
export class Migration20261122000100ConsentInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('consent')) this.addSql(sql);
  }
}
