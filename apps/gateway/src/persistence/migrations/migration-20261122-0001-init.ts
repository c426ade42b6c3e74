import { Migration } from '@mikro-orm/migrations';
import { eventSourcingTablesSql } from '#platform/event-store';

export class Migration20261122000100GatewayInit extends Migration {
  override async up(): Promise<void> {
    for (const sql of eventSourcingTablesSql('gateway')) this.addSql(sql);
    this.addSql(`create table gateway.api_keys (
      id text primary key,
      app_id text not null,
      environment text not null,
      prefix text not null,
      key_hash text not null unique,
      scopes jsonb not null,
      created_at timestamptz not null,
      expires_at timestamptz,
      revoked_at timestamptz,
      last_used_at timestamptz
    )`);
    this.addSql('create index api_keys_app_idx on gateway.api_keys (app_id)');
    this.addSql(`create table gateway.app_access (
      app_id text primary key,
      org_id text not null,
      status text not null,
      version integer not null
    )`);
  }
}
