import { Migration } from '@mikro-orm/migrations';

/**
 * Endpoints (inline projection of the endpoint streams), their credentials (never in events),
 * public events with the exact payload bytes (kept 7 days for replay), deliveries (state-stored,
 * a work queue ordered by next_attempt_at) and their attempts, and the files media has registered.
 */
export class Migration20261122000200WebhookTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table webhook_dispatcher.endpoints (
      endpoint_id text primary key,
      app_id text not null,
      url text not null,
      events text[] not null,
      state text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      verified_at timestamptz,
      disabled_at timestamptz,
      last_verification_error text,
      version integer not null
    )`);
    this.addSql(`create index endpoints_app_idx on webhook_dispatcher.endpoints (app_id, created_at)`);
    this.addSql(`create table webhook_dispatcher.endpoint_credentials (
      endpoint_id text primary key,
      verify_token text not null,
      secret text not null,
      previous_secret text,
      previous_secret_expires_at timestamptz
    )`);
    this.addSql(`create table webhook_dispatcher.endpoint_health (
      endpoint_id text primary key,
      failing_since timestamptz,
      last_success_at timestamptz
    )`);
    this.addSql(`create table webhook_dispatcher.public_events (
      event_id text primary key,
      app_id text not null,
      type text not null,
      payload text,
      requires_media text[] not null default '{}',
      source_event_id text,
      created_at timestamptz not null
    )`);
    this.addSql(`create index public_events_retention_idx on webhook_dispatcher.public_events (created_at) where payload is not null`);
    this.addSql(`create table webhook_dispatcher.deliveries (
      delivery_id text primary key,
      app_id text not null,
      endpoint_id text not null,
      event_id text not null,
      event_type text not null,
      status text not null,
      attempts integer not null default 0,
      created_at timestamptz not null,
      next_attempt_at timestamptz,
      lease_until timestamptz,
      last_attempt_at timestamptz,
      last_response_status integer,
      last_error text,
      delivered_at timestamptz,
      failed_at timestamptz,
      replay_of text
    )`);
    // One original delivery per (endpoint, event): a replayed topic or a redelivered Kafka message adds none.
    this.addSql(`create unique index deliveries_original_idx on webhook_dispatcher.deliveries (endpoint_id, event_id) where replay_of is null`);
    this.addSql(`create index deliveries_due_idx on webhook_dispatcher.deliveries (next_attempt_at) where status = 'pending'`);
    this.addSql(`create index deliveries_app_idx on webhook_dispatcher.deliveries (app_id, delivery_id desc)`);
    this.addSql(`create index deliveries_endpoint_idx on webhook_dispatcher.deliveries (endpoint_id, delivery_id desc)`);
    this.addSql(`create index deliveries_event_idx on webhook_dispatcher.deliveries (event_id)`);
    this.addSql(`create table webhook_dispatcher.delivery_attempts (
      delivery_id text not null,
      attempt integer not null,
      started_at timestamptz not null,
      finished_at timestamptz not null,
      outcome text not null,
      response_status integer,
      error text,
      duration_ms integer not null,
      primary key (delivery_id, attempt)
    )`);
    this.addSql(`create table webhook_dispatcher.known_media (media_id text primary key)`);
  }
}
