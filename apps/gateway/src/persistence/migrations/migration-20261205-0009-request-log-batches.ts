import { Migration } from '@mikro-orm/migrations';

/**
 * The request log keeps a row per app and flush holding its requests as one JSON array (ADR 0216):
 * a row and three index entries per request cost Postgres more than a cheap request itself. The
 * list reads an app's newest batches (app, last_at); a request is found by its id's time among the
 * batches of its minute (app, first_id_ms); the pruner deletes by age (last_at). Entries are `json`,
 * kept as written: an envelope is shown as the client got it. Rows of the first layout are dropped
 * with their table (a log, kept 7 days).
 */
export class Migration20261205000900GatewayRequestLogBatches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists gateway.request_log`);
    this.addSql(`create table gateway.request_log_batches (
      batch_id bigint generated always as identity primary key,
      app_id text not null,
      first_at timestamptz not null,
      last_at timestamptz not null,
      first_id_ms bigint not null,
      last_id_ms bigint not null,
      entries json not null
    )`);
    // lz4 where the server has it: cheaper to compress than the default pglz.
    this.addSql(`do $$ begin
      if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any(enumvals)) then
        alter table gateway.request_log_batches alter column entries set compression lz4;
      end if;
    end $$`);
    this.addSql(`create index request_log_batches_app_last_idx on gateway.request_log_batches (app_id, last_at desc)`);
    this.addSql(`create index request_log_batches_app_id_ms_idx on gateway.request_log_batches (app_id, first_id_ms) include (last_id_ms)`);
    this.addSql(`create index request_log_batches_last_idx on gateway.request_log_batches (last_at)`);
  }
}
