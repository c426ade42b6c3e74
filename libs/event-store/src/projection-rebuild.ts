import type { Client } from 'pg';
import type { DomainEvent } from '@platform/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEvent } from './event-store';
import { bufferingRebuildEntityManager, tableRedirect } from './rebuild-entity-manager';
import { quoteIdent } from './schema.sql';

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
 * service keeps writing (DESIGN: event store is the truth;
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
  const { secondaryIndexes } = await createRebuildTables(query, spec.schema, spec.tables, targetName);

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
      const rows = await query(`${select} where e.position > $1 and e.position <= $2 and e.type = any($3) order by e.position`, [floor.toString(), last.toString(), spec.eventTypes]);
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
 * Creates `targetName` with an empty copy of each live table: columns, defaults, checks, the primary
 * and unique keys and the owner. The other indexes are returned, renamed onto the copies, to be built
 * after the bulk load (indexRebuiltTables), which is much faster than maintaining them row by row.
 */
export async function createRebuildTables(query: RebuildQuery, schema: string, tables: string[], targetName: string): Promise<{ secondaryIndexes: string[] }> {
  const live = quoteIdent(schema);
  const target = quoteIdent(targetName);
  const secondaryIndexes: string[] = [];
  await query(`create schema ${target}`);
  for (const table of tables) {
    const t = quoteIdent(table);
    await query(`create table ${target}.${t} (like ${live}.${t} including all excluding indexes)`);
    const constraints = await query<{ conname: string; def: string }>(
      `select conname, pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
       where n.nspname = $1 and r.relname = $2 and c.contype in ('p', 'u')`,
      [schema, table],
    );
    for (const c of constraints) await query(`alter table ${target}.${t} add constraint ${quoteIdent(c.conname)} ${c.def}`);
    const indexes = await query<{ indexdef: string }>(
      `select indexdef from pg_indexes i where schemaname = $1 and tablename = $2
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = $1::regnamespace)`,
      [schema, table],
    );
    const from = ` ON ${schema}.${table} `;
    for (const { indexdef } of indexes) {
      if (!indexdef.includes(from)) throw new Error(`Unexpected index definition: ${indexdef}`);
      secondaryIndexes.push(indexdef.replace(from, ` ON ${targetName}.${table} `));
    }
    const [{ owner }] = await query<{ owner: string }>(`select tableowner as owner from pg_tables where schemaname = $1 and tablename = $2`, [schema, table]);
    await query(`alter table ${target}.${t} owner to ${quoteIdent(owner)}`);
  }
  return { secondaryIndexes };
}

export async function indexRebuiltTables(query: RebuildQuery, targetName: string, tables: string[], secondaryIndexes: string[]): Promise<void> {
  for (const indexdef of secondaryIndexes) await query(indexdef);
  for (const table of tables) await query(`analyze ${quoteIdent(targetName)}.${quoteIdent(table)}`);
}

export interface SwapOptions {
  schema: string;
  /** Live tables in the order the service's writers take them. */
  tables: string[];
  targetName: string;
  oldName: string;
  keepOld: boolean;
  /** Total time to get the locks, over all attempts (default 5000 ms). */
  lockTimeoutMs?: number;
  isolation: 'repeatable read' | 'read committed';
  /** Runs once every live table is locked, before the move: the last events go into the copies. */
  underLock: () => Promise<void>;
}

/** Lock waits per attempt: short, so a deadlock with a live writer ends by our timeout, not theirs. */
const LOCK_ATTEMPT_MS = 500;

/**
 * Moves the rebuilt tables in, in one transaction that holds the live tables `access exclusive`
 * (writers and readers wait for a few ms). The locks are taken in the writers' order, but a batch
 * consumer may still hold one table while waiting for another: our own lock waits are short and our
 * deadlock check runs first, so when that happens this side gives way (rolls back to a savepoint,
 * releasing what it took) and tries again until lockTimeoutMs; a live send or consumer never fails
 * because of a rebuild. A statement that waited on the lock resolves the table name again and
 * writes the rebuilt table.
 */
export async function swapInRebuiltTables(query: RebuildQuery, o: SwapOptions): Promise<{ swapLockMs: number; rows: Record<string, number> }> {
  const live = quoteIdent(o.schema);
  const target = quoteIdent(o.targetName);
  const budget = o.lockTimeoutMs ?? 5000;
  const lockStarted = performance.now();
  await query(`begin isolation level ${o.isolation}`);
  let swapLockMs: number;
  try {
    await query(`set local lock_timeout = ${Math.min(LOCK_ATTEMPT_MS, budget)}`);
    // Only a superuser may lower it; without it the live writer's 1 s check may pick either side.
    await query('savepoint deadlock_timeout');
    await query(`set local deadlock_timeout = 100`).then(
      () => query('release savepoint deadlock_timeout'),
      () => query('rollback to savepoint deadlock_timeout'),
    );
    for (let attempt = 1; ; attempt++) {
      await query('savepoint swap_locks');
      try {
        await query(`lock table ${o.tables.map((t) => `${live}.${quoteIdent(t)}`).join(', ')} in access exclusive mode`);
        await query('release savepoint swap_locks');
        break;
      } catch (error) {
        const code = (error as { code?: string }).code;
        // 55P03 lock_not_available (our lock_timeout), 40P01 deadlock_detected (we were chosen).
        if ((code !== '55P03' && code !== '40P01') || performance.now() - lockStarted >= budget) throw error;
        await query('rollback to savepoint swap_locks');
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * attempt, 250)));
      }
    }
    await o.underLock();
    await query(`create schema ${quoteIdent(o.oldName)}`);
    for (const table of o.tables) {
      const t = quoteIdent(table);
      await query(`alter table ${live}.${t} set schema ${quoteIdent(o.oldName)}`);
      await query(`alter table ${target}.${t} set schema ${live}`);
    }
    await query(`drop schema ${target}`);
    await query('commit');
    swapLockMs = performance.now() - lockStarted;
  } catch (error) {
    await query('rollback');
    await query(`drop schema if exists ${target} cascade`);
    throw error;
  }
  if (!o.keepOld) await query(`drop schema ${quoteIdent(o.oldName)} cascade`);
  const rows: Record<string, number> = {};
  for (const table of o.tables) {
    const [{ n }] = await query<{ n: number }>(`select count(*)::int as n from ${live}.${quoteIdent(table)}`);
    rows[table] = n;
  }
  return { swapLockMs, rows };
}


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
  project: (em: EntityManager, events: DomainEvent[]) => Promise<void>;
}): ProjectionRebuildSpec {
  return {
    service: o.service,
    schema: o.schema,
    tables: o.tables,
    eventTypes: o.eventTypes,
    start: (targetName) => {
      const redirect = tableRedirect(o.schema, o.tables, targetName);
      return {
        applyPage: async (query, _target, events) => {
          const { em, flush } = bufferingRebuildEntityManager(query, redirect);
          await o.project(em, events.map((e) => e.stored));
          await flush();
        },
        flush: async () => undefined,
      };
    },
  };
}
