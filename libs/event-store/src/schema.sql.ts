/**
 * DDL of the event-sourcing tables every service keeps in its own schema (architecture section 2).
 * - events: append-only store; unique (stream_id, stream_version) gives optimistic concurrency.
 * - outbox: the relay's republish queue (redrives, and rows written by releases before the event
 *   table became the outbox); the relay deletes them once Kafka has acknowledged them. Appends no
 *   longer write it: the event table is the outbox (eventTableOutboxSql).
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

/**
 * What makes the event table the outbox (docs/adr/0213-the-event-table-is-the-outbox.md), idempotent,
 * for a migration of a schema made before and for new schemas alike:
 * - `tx_id`: the appending transaction's id (xid8), by default. The relay publishes an event only once
 *   every transaction that began before it ended (`tx_id < pg_snapshot_xmin`), in (tx_id, position)
 *   order, so an event that commits late with a lower position is never passed over.
 * - `shard`: the relay shard of its Kafka key, or null for an event the service keeps private.
 * Rows stored before stay null in both and are never published again. A pending outbox row stays in
 * the outbox, which the relay drains before it tails the table.
 * - relay_cursor: per shard, the (tx_id, position) of the last event published; one row, so a batch
 *   moves the cursors of all the shards it published with a single row write.
 */
export function eventTableOutboxSql(schema: string): string[] {
  const s = quoteIdent(schema);
  return [
    `alter table ${s}.events add column if not exists tx_id xid8`,
    `alter table ${s}.events alter column tx_id set default pg_current_xact_id()`,
    `alter table ${s}.events add column if not exists shard smallint`,
    `create index if not exists events_unpublished on ${s}.events (shard, tx_id, position) where shard is not null`,
    `create table if not exists ${s}.relay_cursor (
      id smallint primary key default 1 check (id = 1),
      tx_ids xid8[] not null,
      positions bigint[] not null
    )`,
    `insert into ${s}.relay_cursor (id, tx_ids, positions)
      values (1, array_fill('0'::xid8, array[${RELAY_SHARDS}]), array_fill(0::bigint, array[${RELAY_SHARDS}]))
      on conflict (id) do nothing`,
  ];
}

/**
 * How many shards the relays split a service's events into: a key's events are all in shard
 * `relayShardOf(key)`. A constant of the platform, not a setting: relays of two values at once would
 * let two of them publish one key.
 */
export const RELAY_SHARDS = 16;

/** The relay shard of a Kafka key: FNV-1a of its UTF-16 code units, masked to RELAY_SHARDS. */
export function relayShardOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) & (RELAY_SHARDS - 1);
}

export function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Unsafe SQL identifier: ${name}`);
  return `"${name}"`;
}

/** Channel the append transaction NOTIFYs and the relay LISTENs on. */
export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}
