import { Migration } from '@mikro-orm/migrations';

/** Users' inboxes: messages the platform handed over and the chat product delivered. */
export class Migration20261122000200ChatSimInbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table chat_sim.inbox_messages (
      message_id text primary key,
      user_id text not null,
      app_id text not null,
      type text not null,
      text text,
      media jsonb not null,
      received_at timestamptz not null
    )`);
    this.addSql(`create index inbox_messages_user_app_idx on chat_sim.inbox_messages (user_id, app_id, received_at, message_id)`);
  }
}
