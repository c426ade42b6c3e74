/**
 * DDL of the event-sourcing tables every service keeps in its own schema (architecture section 2).
 * - events: append-only store; unique (stream_id, stream_version) gives optimistic concurrency.
 * - outbox: Debezium-style rows written in the same transaction as the events; the relay deletes
 *   them once Kafka has acknowledged them.
 * - inbox: (consumer, event_id) of the events a consumer applied within the dedupe window, written
 *   with the effect; older rows are pruned (inbox-retention.ts).
 * - consumer_offsets: the last offset a consumer applied per topic and partition, moved in the
 *   effect's transaction: a replay from an older offset changes nothing, however old.
 * - dead_letters: events a consumer could not apply, kept for inspection and redrive (30 days).
 */
export function eventSourcingTablesSql(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `create table if not exists ${s}.events (
      position bigserial primary key,
      stream_id text not null,
      stream_version integer not null,
      event_id uuid not null unique,
      type text not null,
      data jsonb not null,
      metadata jsonb not null,
      occurred_at timestamptz not null,
      recorded_at timestamptz not null default now(),
      constraint events_stream_version_unique unique (stream_id, stream_version)
    )`,
    `create table if not exists ${s}.outbox (
      id uuid primary key,
      seq bigserial not null,
      aggregate_type text not null,
      aggregate_id text not null,
      type text not null,
      topic text not null,
      payload jsonb not null,
      headers jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now()
    )`,
    `create index if not exists outbox_seq_idx on ${s}.outbox (seq)`,
    `create table if not exists ${s}.inbox (
      consumer text not null,
      event_id text not null,
      processed_at timestamptz not null default now(),
      primary key (consumer, event_id)
    )`,
    `create table if not exists ${s}.dead_letters (
      id bigserial primary key,
      consumer text not null,
      topic text not null,
      partition integer not null,
      "offset" text not null,
      event_id text,
      payload text not null,
      error text not null,
      created_at timestamptz not null default now()
    )`,
    ...boundedInboxSql(schema),
  ];
}

/**
 * What keeps the inbox within its window (docs/adr/0190-bounded-inbox-offsets-and-window.md): the
 * applied offsets, and the age indexes its pruner deletes by. Idempotent, for a migration of a schema
 * made before.
 */
export function boundedInboxSql(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `create table if not exists ${s}.consumer_offsets (
      consumer text not null,
      topic text not null,
      partition integer not null,
      applied_offset bigint not null,
      primary key (consumer, topic, partition)
    )`,
    `create index if not exists inbox_by_age on ${s}.inbox (processed_at)`,
    `create index if not exists dead_letters_by_age on ${s}.dead_letters (created_at)`,
    `create index if not exists dead_letters_by_offset on ${s}.dead_letters (consumer, topic, partition, "offset")`,
  ];
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Unsafe SQL identifier: ${name}`);
  return `"${name}"`;
}

/** Channel the append transaction NOTIFYs and the relay LISTENs on. */
export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}
