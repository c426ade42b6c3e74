import { Migration } from '@mikro-orm/migrations';

/**
 * Messages (inline projection of the message streams) and everything the send rules read:
 * projections of chat.user-events (orgs, recipients, windows), consent.events (app users,
 * consents, testers) and profile.events (apps), plus the counters behind D7 and D8.
 */
export class Migration20261122000200MessagingTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table messaging.messages (
      message_id text primary key,
      app_id text not null,
      direction text not null,
      app_user_id text not null,
      user_id text not null,
      type text not null,
      text text,
      media jsonb not null,
      status text not null,
      client_reference text,
      business_initiated boolean not null default false,
      failure_reason text,
      created_at timestamptz not null,
      delivered_at timestamptz,
      read_at timestamptz,
      failed_at timestamptz,
      version integer not null
    )`);
    this.addSql(`create index messages_business_initiated_idx on messaging.messages (app_id, app_user_id, created_at) where business_initiated`);
    // Messaging's own dedupe of sends by Idempotency-Key: the truth behind the gateway's record, so a
    // gateway that died mid-request can never make a retry send twice.
    this.addSql(`create table messaging.send_requests (
      app_id text not null,
      idempotency_key text not null,
      body_hash text not null,
      message_id text not null,
      created_at timestamptz not null,
      primary key (app_id, idempotency_key)
    )`);
    this.addSql(`create table messaging.daily_counts (app_id text not null, day date not null, accepted integer not null, primary key (app_id, day))`);
    this.addSql(`create table messaging.orgs (org_id text primary key, allows_external_businesses boolean not null)`);
    this.addSql(`create table messaging.recipients (
      user_id text primary key,
      org_id text not null,
      email text not null,
      status text not null
    )`);
    this.addSql(`create index recipients_email_idx on messaging.recipients (email)`);
    this.addSql(`create table messaging.apps (
      app_id text primary key,
      org_id text not null,
      status text not null,
      daily_quota integer not null,
      version integer not null
    )`);
    this.addSql(`create table messaging.app_users (app_id text not null, app_user_id text not null, user_id text not null, primary key (app_id, app_user_id))`);
    this.addSql(
      `create table messaging.consents (app_id text not null, app_user_id text not null, status text not null, version integer not null, primary key (app_id, app_user_id))`,
    );
    this.addSql(`create table messaging.testers (app_id text not null, user_id text not null, primary key (app_id, user_id))`);
    this.addSql(
      `create table messaging.windows (app_id text not null, app_user_id text not null, last_user_message_at timestamptz not null, primary key (app_id, app_user_id))`,
    );
  }
}
