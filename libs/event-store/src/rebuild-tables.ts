/** The tables a projection rebuild fills: empty copies of the live ones, their indexes, and the swap that puts them in place. */
import { quoteIdent } from './schema.sql';
import type { RebuildQuery } from './projection-rebuild';

/**
 * Creates `targetName` with an empty copy of each live table: columns, defaults, checks, the primary
 * and unique keys and the owner, and the secondary indexes named in `duringLoad`. The other indexes are
 * returned, renamed onto the copies, to be built after the bulk load (indexRebuiltTables), which is much
 * faster than maintaining them row by row.
 */
export async function createRebuildTables(
  query: RebuildQuery,
  schema: string,
  tables: string[],
  targetName: string,
  duringLoad: string[] = [],
): Promise<{ secondaryIndexes: string[] }> {
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
    const indexes = await query<{ indexname: string; indexdef: string }>(
      `select indexname, indexdef from pg_indexes i where schemaname = $1 and tablename = $2
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = $1::regnamespace)`,
      [schema, table],
    );
    const from = ` ON ${schema}.${table} `;
    for (const { indexname, indexdef } of indexes) {
      if (!indexdef.includes(from)) throw new Error(`Unexpected index definition: ${indexdef}`);
      const onCopy = indexdef.replace(from, ` ON ${targetName}.${table} `);
      if (duringLoad.includes(indexname)) await query(onCopy);
      else secondaryIndexes.push(onCopy);
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
    // Owned by the service's role, like the tables moved into it, so that the service itself drops it
    // once its retention has passed (rebuildLeftoversJob in service-kit).
    const [{ owner }] = await query<{ owner: string }>(`select tableowner as owner from pg_tables where schemaname = $1 and tablename = $2`, [
      o.schema,
      o.tables[0],
    ]);
    await query(`create schema ${quoteIdent(o.oldName)} authorization ${quoteIdent(owner)}`);
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
