import { Migration } from '@mikro-orm/migrations';

/**
 * The request log (docs/adr/0216-request-log-off-the-request-path.md): one row per public API
 * request of an app, written in batches, kept 7 days. The console reads an app's newest first
 * (app, time) and one by request id (the key); the pruner deletes by age (time). The envelope is
 * `json`, not `jsonb`: it is shown as the client got it, its members in their order.
 */
export class Migration20261205000800GatewayRequestLog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table gateway.request_log (
      app_id text not null,
      request_id text not null,
      at timestamptz not null,
      method text not null,
      path text not null,
      status smallint not null,
      error_code text,
      key_prefix text,
      duration_ms real not null,
      error_envelope json,
      primary key (app_id, request_id)
    )`);
    this.addSql(`create index request_log_app_at_idx on gateway.request_log (app_id, at desc, request_id desc)`);
    this.addSql(`create index request_log_at_idx on gateway.request_log (at)`);
  }
}
