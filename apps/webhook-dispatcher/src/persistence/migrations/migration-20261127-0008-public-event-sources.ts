import { Migration } from '@mikro-orm/migrations';

/** `platformctl trace message` finds the public events made from a message's events by this (ADR 0193). */
export class Migration20261127000800PublicEventSources extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index public_events_source_idx on webhook_dispatcher.public_events (source_event_id) where source_event_id is not null`);
  }
}
