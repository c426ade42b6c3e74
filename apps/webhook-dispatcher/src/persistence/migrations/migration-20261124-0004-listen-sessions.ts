import { Migration } from '@mikro-orm/migrations';

/**
 * Listen sessions (`platformctl listen`): a subscription like an endpoint that gets no HTTP
 * deliveries and counts against no limit, one per (API key, event types), and the public events
 * recorded for each. `seq` is the session's cursor; it is given out when an event is first read
 * (under the session row's lock), not when it is recorded, because recording transactions commit
 * out of order and a cursor taken from them would let a reader skip an event committed late.
 */
export class Migration20261124000400ListenSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table webhook_dispatcher.listen_sessions (
      session_id text primary key,
      app_id text not null,
      key_id text not null,
      events text[] not null,
      last_seq bigint not null default 0,
      created_at timestamptz not null,
      connected_at timestamptz not null,
      expires_at timestamptz not null
    )`);
    // At most one session per key and filter (an expired one is replaced).
    this.addSql(`create unique index listen_sessions_key_idx on webhook_dispatcher.listen_sessions (key_id, events)`);
    this.addSql(`create index listen_sessions_app_idx on webhook_dispatcher.listen_sessions (app_id)`);
    this.addSql(`create table webhook_dispatcher.listen_events (
      session_id text not null,
      event_id text not null,
      recorded bigserial not null,
      seq bigint,
      created_at timestamptz not null,
      primary key (session_id, event_id)
    )`);
    this.addSql(`create index listen_events_unread_idx on webhook_dispatcher.listen_events (session_id, recorded) where seq is null`);
    this.addSql(`create unique index listen_events_seq_idx on webhook_dispatcher.listen_events (session_id, seq)`);
  }
}
