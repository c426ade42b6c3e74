import type { Client } from 'pg';
import type { DomainEvent } from '#platform/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEvent } from './event-store';
import { bufferingRebuildEntityManager, tableRedirect } from './rebuild-entity-manager';
import { quoteIdent } from './schema.sql';
import { createRebuildTables, indexRebuiltTables, swapInRebuiltTables } from './rebuild-tables';

/** An event as a rebuild reads it from `<schema>.events`: timestamps stay text so they round-trip exactly. */
export interface RebuildEvent {
  position: string;
  streamId: string;
  streamVersion: number;
  eventId: string;
  type: string;
  data: Record<string, unknown>;
  appId: string | null;
  /** occurred_at as Postgres text (with offset). */
  occurredAt: string;
  /** occurred_at's UTC date, YYYY-MM-DD. */
  utcDay: string;
  /** The whole event as the append stored it (what inline projections take). */
  stored: DomainEvent;
}

export type RebuildQuery = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/**
 * What a service tells the rebuild about one group of projection tables fed only by its own event store.
 * `applyPage` folds events (position order, each exactly once) into the copies in `target` (a quoted schema).
 */
export interface ProjectionRebuildSpec {
  service: string;
  schema: string;
  /** Live tables, in the order the service's writers touch them (the swap locks them in this order). */
  tables: string[];
  eventTypes: string[];
  /**
   * Secondary indexes (by name) the folding itself reads through, built on the empty copies before the
   * load instead of after it: without them each such read scans the copy, and the load grows with the
   * square of the events.
   */
  indexesDuringLoad?: string[];
  /** One rebuild's folding state, writing into the copies in `targetName`: it may keep rows in memory between pages, and must write them all on flush. */
  start(targetName: string): RebuildSession;
}

export interface RebuildSession {
  applyPage(query: RebuildQuery, target: string, events: RebuildEvent[]): Promise<void>;
  flush(query: RebuildQuery, target: string): Promise<void>;
}

export interface RebuildOptions {
  pageSize?: number;
  /** Keep the replaced tables in `<schema>_old_<ts>` instead of dropping them. */
  keepOld?: boolean;
  lockTimeoutMs?: number;
  onProgress?: (done: number, total: number) => void;
  /** Test hook: runs between the bulk phase and the swap. */
  beforeSwap?: () => Promise<void>;
}

export interface RebuildReport {
  service: string;
  events: number;
  seconds: number;
  eventsPerSecond: number;
  bulkEventsPerSecond: number;
  swapLockMs: number;
  tailEvents: number;
  rows: Record<string, number>;
  oldSchema: string | null;
}

interface Snapshot {
  xip: string[];
  maxPosition: string;
}

/**
 * Rebuilds a service's projections from its event store into fresh tables and swaps them in while the
 * service keeps writing (the event store is the truth, architecture section 2;
 * docs/adr/0111-projections-rebuilt-from-the-event-store.md).
 *
 * Positions are allocated at insert, not at commit, so reading `position > last` alone can miss an event
 * whose transaction commits after a later position became visible. Every read therefore records the
 * transactions in progress in its snapshot; each such transaction's events have positions above the
 * highest position visible in the snapshot before the one it first appeared in (its floor). Once it has
 * finished, the rebuild re-reads (floor, last] and applies what it has not applied yet. The swap locks the
 * live tables (every writer of a projection holds a lock on it until commit), catches up the last tail
 * under the lock, and moves the tables: anything still in progress then writes into the rebuilt tables.
 */
export async function rebuildProjections(client: Client, spec: ProjectionRebuildSpec, options: RebuildOptions = {}): Promise<RebuildReport> {
  const pageSize = options.pageSize ?? 10_000;
  const live = quoteIdent(spec.schema);
  const ts = Date.now();
  const targetName = `${spec.schema}_rebuild_${ts}`;
  const target = quoteIdent(targetName);
  const oldName = `${spec.schema}_old_${ts}`;
  const query: RebuildQuery = async (sql, params) => (await client.query(sql, params as unknown[])).rows;
  const writer = spec.start(targetName);
  const started = performance.now();

  // 1. Fresh copies of the live tables (secondary indexes come after the bulk load).
  const { secondaryIndexes } = await createRebuildTables(query, spec.schema, spec.tables, targetName, spec.indexesDuringLoad ?? []);

  // 2. Wait out transactions already running: their positions are unknown, so nothing can bound them.
  const first = await snapshot(query, live);
  for (;;) {
    const [{ n }] = await query<{ n: number }>(`select count(*)::int as n from unnest($1::xid8[]) as x where pg_xact_status(x) = 'in progress'`, [first.xip]);
    if (n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const [{ total }] = await query<{ total: number }>(`select count(*)::int as total from ${live}.events where position <= $1 and type = any($2)`, [
    first.maxPosition,
    spec.eventTypes,
  ]);

  const tracked = new Map<string, bigint>(); // xid → floor position
  const applied = new Set<string>(); // applied positions above the lowest floor
  let last = 0n;
  let previousMax = BigInt(first.maxPosition);
  let done = 0;

  const select = `select position::text as position, stream_id, stream_version, event_id::text as event_id, type, data, metadata->>'appId' as app_id,
      metadata, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as occurred_at_iso, occurred_at::text as occurred_at, (occurred_at at time zone 'UTC')::date::text as utc_day from ${live}.events e`;
  // (e.position: a bare `position` in order by would be the text column of the select list.)
  const toEvents = (rows: Record<string, unknown>[]): RebuildEvent[] =>
    rows.map((r) => ({
      position: r.position as string,
      streamId: r.stream_id as string,
      streamVersion: r.stream_version as number,
      eventId: r.event_id as string,
      type: r.type as string,
      data: r.data as Record<string, unknown>,
      appId: r.app_id as string | null,
      occurredAt: r.occurred_at as string,
      utcDay: r.utc_day as string,
      stored: storedEvent(r.stream_id as string, {
        event_id: r.event_id as string,
        type: r.type as string,
        stream_version: r.stream_version as number,
        data: r.data,
        metadata: r.metadata as Record<string, unknown>,
        occurred_at: r.occurred_at_iso as string,
      }),
    }));
  const apply = async (events: RebuildEvent[]) => {
    if (events.length === 0) return;
    await writer.applyPage(query, target, events);
    for (const e of events) applied.add(e.position);
    done += events.length;
    options.onProgress?.(done, total);
  };

  /** One read in its own repeatable-read snapshot; answers how many new events it applied. */
  const step = async (inTransaction: boolean): Promise<number> => {
    if (!inTransaction) await query('begin isolation level repeatable read');
    const snap = await snapshot(query, live);
    const inProgress = new Set(snap.xip);
    let floor: bigint | null = null;
    for (const [xid, f] of tracked) {
      if (inProgress.has(xid)) continue;
      tracked.delete(xid);
      if (floor === null || f < floor) floor = f;
    }
    if (floor !== null && floor < last) {
      const rows = await query(`${select} where e.position > $1 and e.position <= $2 and e.type = any($3) order by e.position`, [
        floor.toString(),
        last.toString(),
        spec.eventTypes,
      ]);
      await apply(toEvents(rows).filter((e) => !applied.has(e.position)));
    }
    for (const xid of snap.xip) if (!tracked.has(xid)) tracked.set(xid, previousMax);
    previousMax = BigInt(snap.maxPosition);
    const rows = await query(`${select} where e.position > $1 and e.type = any($2) order by e.position limit $3`, [last.toString(), spec.eventTypes, pageSize]);
    const events = toEvents(rows);
    await apply(events);
    if (events.length > 0) last = BigInt(events[events.length - 1].position);
    // Positions at or below every floor (and below last) can never be read again.
    let keepAbove = last;
    for (const f of tracked.values()) if (f < keepAbove) keepAbove = f;
    for (const p of applied) if (BigInt(p) <= keepAbove) applied.delete(p);
    if (!inTransaction) await query('commit');
    return events.length;
  };

  // 3. Bulk, then the secondary indexes, then catch up until a read comes back short.
  while ((await step(false)) === pageSize);
  await writer.flush(query, target);
  const bulkSeconds = (performance.now() - started) / 1000;
  const bulkDone = done;
  await indexRebuiltTables(query, targetName, spec.tables, secondaryIndexes);
  await options.beforeSwap?.();
  while ((await step(false)) === pageSize);
  await writer.flush(query, target);

  // 4. Swap: lock the live tables (writers wait), apply the last tail, move the tables.
  const beforeTail = done;
  const { swapLockMs, rows } = await swapInRebuiltTables(query, {
    schema: spec.schema,
    tables: spec.tables,
    targetName,
    oldName,
    keepOld: options.keepOld ?? false,
    lockTimeoutMs: options.lockTimeoutMs,
    isolation: 'repeatable read',
    underLock: async () => {
      while ((await step(true)) === pageSize);
      await writer.flush(query, target);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    service: spec.service,
    events: done,
    seconds: round(seconds),
    eventsPerSecond: Math.round(done / seconds),
    bulkEventsPerSecond: Math.round(bulkDone / bulkSeconds),
    swapLockMs: round(swapLockMs),
    tailEvents: done - beforeTail,
    rows,
    oldSchema: options.keepOld ? oldName : null,
  };
}

async function snapshot(query: RebuildQuery, live: string): Promise<Snapshot> {
  const [row] = await query<{ xip: string[] | null; max: string }>(
    `select array(select pg_snapshot_xip(pg_current_snapshot())::text) as xip, coalesce((select max(position) from ${live}.events), 0)::text as max`,
  );
  return { xip: row.xip ?? [], maxPosition: row.max };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/**
 * A rebuild spec made of a service's inline projection itself (the function the append calls),
 * pointed at the copies: exact by construction, one statement at a time, so slower than a dedicated
 * fold such as messaging's. `tables` must hold every table the projection writes (the redirect
 * refuses any other table of the schema).
 */
export function inlineProjectionRebuild(o: {
  service: string;
  schema: string;
  tables: string[];
  eventTypes: string[];
  indexesDuringLoad?: string[];
  project: (em: EntityManager, events: DomainEvent[]) => Promise<void>;
}): ProjectionRebuildSpec {
  return {
    service: o.service,
    schema: o.schema,
    tables: o.tables,
    eventTypes: o.eventTypes,
    indexesDuringLoad: o.indexesDuringLoad,
    start: (targetName) => {
      const redirect = tableRedirect(o.schema, o.tables, targetName);
      return {
        applyPage: async (query, _target, events) => {
          const { em, flush } = bufferingRebuildEntityManager(query, redirect);
          await o.project(
            em,
            events.map((e) => e.stored),
          );
          await flush();
        },
        flush: async () => undefined,
      };
    },
  };
}
