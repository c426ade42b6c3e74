import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency records of POST /messages (architecture section 3, step 6): one per (app, key), holding the
 * body hash, the state (in_progress while the request runs, done with the stored 2xx answer) and a
 * lease, so a gateway that died mid-request does not block its key for 24 hours.
 */
export class Migration20261122000200GatewayIdempotency extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table gateway.idempotency_records (
      app_id text not null,
      idempotency_key text not null,
      body_hash text not null,
      state text not null check (state in ('in_progress', 'done')),
      response_status integer,
      response_body jsonb,
      lease_until timestamptz not null,
      created_at timestamptz not null,
      primary key (app_id, idempotency_key)
    )`);
    this.addSql(`create index idempotency_records_created_idx on gateway.idempotency_records (created_at)`);
  }
}
