import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';

export class Migration20261122000100ProfileInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('profile')) this.addSql(sql);
    this.addSql(`create table profile.apps (
      app_id text primary key,
      org_id text not null,
      handle text not null unique,
      status text not null,
      verification_status text not null,
      verified_at timestamptz,
      daily_quota integer not null,
      display_name text not null,
      about text,
      website_url text,
      category text,
      avatar_media_id text,
      creator_email text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      version integer not null
    )`);
    this.addSql(`create table profile.orgs (
      org_id text primary key,
      name text not null,
      allows_external_businesses boolean not null
    )`);
  }
}
