import { Migration } from '@mikro-orm/migrations';

/**
 * Read models of the consent service, all rebuildable: from its event store (consents, versions,
 * app users, testers) or from chat.user-events and profile.events (reply windows, apps).
 */
export class Migration20261122000200ConsentTables extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table consent.consents (
      app_id text not null,
      app_user_id text not null,
      user_id text not null,
      status text not null,
      source text not null,
      ref text,
      reason text,
      opted_in_at timestamptz not null,
      opted_out_at timestamptz,
      updated_at timestamptz not null,
      version integer not null,
      primary key (app_id, app_user_id)
    )`);
    // GET /consents pages a snapshot: each consent change closes the previous version and opens a new
    // one under a per-app sequence, so a listing started at sequence S reads exactly the state at S.
    this.addSql(`create table consent.consent_list_seq (app_id text primary key, seq bigint not null)`);
    this.addSql(`create table consent.consent_versions (
      app_id text not null,
      seq bigint not null,
      app_user_id text not null,
      status text not null,
      source text not null,
      ref text,
      opted_in_at timestamptz not null,
      opted_out_at timestamptz,
      updated_at timestamptz not null,
      valid_to_seq bigint,
      superseded_at timestamptz,
      primary key (app_id, seq)
    )`);
    this.addSql(
      `create index consent_versions_list_idx on consent.consent_versions (app_id, updated_at desc, app_user_id) include (seq, valid_to_seq, status)`,
    );
    this.addSql(
      `create index consent_versions_status_idx on consent.consent_versions (app_id, status, updated_at desc, app_user_id) include (seq, valid_to_seq)`,
    );
    this.addSql(`create index consent_versions_current_idx on consent.consent_versions (app_id, app_user_id) where valid_to_seq is null`);
    this.addSql(`create index consent_versions_superseded_idx on consent.consent_versions (superseded_at) where superseded_at is not null`);
    this.addSql(`create table consent.app_users (
      app_id text not null,
      app_user_id text not null,
      user_id text not null,
      identified_at timestamptz not null,
      primary key (app_id, app_user_id)
    )`);
    this.addSql(`create index app_users_user_idx on consent.app_users (user_id)`);
    this.addSql(`create table consent.testers (
      app_id text not null,
      user_id text not null,
      app_user_id text not null,
      status text not null,
      invited_at timestamptz not null,
      accepted_at timestamptz,
      primary key (app_id, user_id)
    )`);
    this.addSql(`create table consent.reply_windows (
      app_id text not null,
      app_user_id text not null,
      last_user_message_at timestamptz not null,
      primary key (app_id, app_user_id)
    )`);
    this.addSql(`create table consent.apps (app_id text primary key, org_id text not null, handle text not null)`);
    // Why a user action was refused (e.g. Allow on an expired link), for the simulator to report.
    this.addSql(`create table consent.refused_user_actions (
      event_id text primary key,
      code text not null,
      message text not null,
      details jsonb,
      refused_at timestamptz not null default now()
    )`);
  }
}
