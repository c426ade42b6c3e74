import { Migration } from '@mikro-orm/migrations';

export class Migration20261127000300ConsoleInvitations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table console.invitations (
      token_hash text primary key,
      app_id text not null references console.apps (app_id),
      email text not null,
      invited_by text not null,
      invited_at timestamptz not null,
      expires_at timestamptz not null,
      accepted_at timestamptz
    )`);
    this.addSql(`create index invitations_by_app on console.invitations (app_id)`);
  }
}
