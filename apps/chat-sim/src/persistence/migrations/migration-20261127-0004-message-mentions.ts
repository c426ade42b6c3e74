import { Migration } from '@mikro-orm/migrations';

/** `platformctl trace message` finds the chat product's events of a message by these, not by a scan of every event (ADR 0193). */
export class Migration20261127000400ChatSimMessageMentions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index events_message_idx on chat_sim.events ((data->>'messageId')) where data->>'messageId' is not null`);
    this.addSql(`create index events_reply_to_idx on chat_sim.events ((data->>'replyTo')) where data->>'replyTo' is not null`);
  }
}
