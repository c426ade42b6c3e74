import { Migration } from '@mikro-orm/migrations';
import { boundedInboxSql } from '#platform/event-store';

/** The consumers' applied offsets and the inbox's age index: the inbox keeps a window, not all history (ADR 0190). */
export class Migration20261127000600MessagingBoundedInbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of boundedInboxSql('messaging')) this.addSql(sql);
  }
}
