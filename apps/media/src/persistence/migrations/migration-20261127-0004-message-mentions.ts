import { Migration } from '@mikro-orm/migrations';

/** `platformctl trace message` finds the files a user sent with a message by this, not by a scan of every event (ADR 0193). */
export class Migration20261127000400MediaMessageMentions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index events_message_idx on media.events ((data->>'messageId')) where data->>'messageId' is not null`);
  }
}
