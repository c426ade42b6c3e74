import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';

export class Migration20261122000100ChatSimInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('chat_sim')) this.addSql(sql);
    this.addSql(`create table chat_sim.orgs (
      org_id text primary key,
      name text not null,
      allows_external_businesses boolean not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      version integer not null
    )`);
    this.addSql(`create table chat_sim.users (
      user_id text primary key,
      org_id text not null,
      email text not null unique check (email = lower(email)),
      display_name text,
      status text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      version integer not null
    )`);
    this.addSql(`create index users_org_id_idx on chat_sim.users (org_id)`);
  }
}
