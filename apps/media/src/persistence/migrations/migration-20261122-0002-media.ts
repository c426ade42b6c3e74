import { Migration } from '@mikro-orm/migrations';

/** Media records (inline projection of the media streams): GET /media, the D14 rate and the sweeps. */
export class Migration20261122000200MediaTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table media.media (
      media_id text primary key,
      app_id text not null,
      source text not null,
      kind text not null,
      mime_type text not null,
      file_name text not null,
      size bigint not null,
      object_key text not null,
      status text not null,
      rejection_reason text,
      upload_expires_at timestamptz,
      message_id text,
      created_at timestamptz not null,
      version integer not null
    )`);
    this.addSql(`create index media_app_uploads_idx on media.media (app_id, created_at) where source = 'app'`);
    this.addSql(`create index media_pending_idx on media.media (upload_expires_at) where status = 'pending_upload'`);
  }
}
