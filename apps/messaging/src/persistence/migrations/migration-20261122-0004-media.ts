import { Migration } from '@mikro-orm/migrations';

/** Media readiness (projection of media.events) for the send rules and the handoff. */
export class Migration20261122000400MessagingMedia extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table messaging.media (
      media_id text primary key,
      app_id text not null,
      kind text not null,
      status text not null,
      mime_type text not null,
      file_name text not null,
      size bigint not null,
      object_key text not null
    )`);
  }
}
