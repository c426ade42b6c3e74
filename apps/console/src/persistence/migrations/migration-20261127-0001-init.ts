import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';
import { mailOutboxTablesSql } from '#platform/mail';

export class Migration20261127000100ConsoleInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('console')) this.addSql(sql);
    // The apps people may see, from profile.events.
    this.addSql(`create table console.apps (
      app_id text primary key,
      org_id text not null,
      handle text not null,
      display_name text not null,
      created_at timestamptz not null
    )`);
    // Who may see and change an app: its creator is its first owner.
    this.addSql(`create table console.members (
      app_id text not null references console.apps (app_id),
      email text not null,
      role text not null check (role in ('owner', 'member')),
      added_at timestamptz not null,
      primary key (app_id, email)
    )`);
    this.addSql(`create index members_by_email on console.members (email)`);
    for (const sql of mailOutboxTablesSql('console')) this.addSql(sql);
  }
}
