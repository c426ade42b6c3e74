import { Migration } from '@mikro-orm/migrations';

/**
 * Upload keys of verified media, which serve nothing once the media is served from its verified copy
 * (ADR 0210): the sweeper removes each once its upload URL has lapsed, so a later PUT leaves nothing.
 */
export class Migration20261204000500MediaUploadLeftovers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table media.upload_leftovers (object_key text primary key, removable_at timestamptz not null)`);
    this.addSql(`create index upload_leftovers_removable_idx on media.upload_leftovers (removable_at)`);
  }
}
