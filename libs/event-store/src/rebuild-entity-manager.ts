import type { EntityManager } from '@mikro-orm/postgresql';
import type { RebuildQuery } from './projection-rebuild';
import { toNumberedParameters, withInlineParameters } from './rebuild-sql-text';
import { RowInsertCoalescer } from './rebuild-row-inserts';

export { toNumberedParameters, withInlineParameters } from './rebuild-sql-text';

/**
 * Points a live handler's statements at the rebuild's copies: `schema.table` for each rebuilt table
 * becomes `"target".table`. A statement that still names another table of the schema is refused, so
 * a handler that reaches beyond the rebuilt tables can never write the live ones during a rebuild;
 * `readsLive` names live tables a handler may read (and must not write) as they are.
 */
export function tableRedirect(schema: string, tables: string[], targetName: string, readsLive: string[] = []): (sql: string) => string {
  const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const rebuilt = new RegExp(`(?<![\\w."])${escaped(schema)}\\.(${tables.map(escaped).join('|')})(?![\\w"])`, 'g');
  const readable = readsLive.length > 0 ? `(?!(?:${readsLive.map(escaped).join('|')})(?![\\w"]))` : '';
  const anyOther = new RegExp(`(?<![\\w."])${escaped(schema)}\\.${readable}("?\\w+"?)`);
  const quotedTarget = `"${targetName.replace(/"/g, '""')}"`;
  return (sql) => {
    const redirected = sql.replace(rebuilt, `${quotedTarget}.$1`);
    const other = anyOther.exec(redirected);
    if (other) throw new Error(`the handler touches ${schema}.${other[1]}, which this rebuild does not cover: ${sql}`);
    return redirected;
  };
}

/** Statements and grouped rows a rebuild buffers at most before it sends them. */
const MAX_BUFFERED = 1000;

/**
 * The part of MikroORM's EntityManager a projection handler uses (`execute` of raw SQL), over the
 * rebuild's own connection, with the live tables' names pointing at the copies: handlers are the
 * live code, so a rebuild applies exactly what the service applies. Statements whose result a
 * handler cannot use (no `returning`, not a query, or executed with method `run`) are buffered and
 * sent many per round trip, with their parameters inlined; they answer `[]`, which is what Postgres
 * returns for them. Runs of single-row inserts become multi-row inserts (RowInsertCoalescer). A
 * statement that returns rows first sends what is buffered, so every statement still runs in call
 * order. `flush` sends the rest: call it before commit. An error in a buffered statement surfaces
 * at the next flush, failing the page.
 */
export function bufferingRebuildEntityManager(query: RebuildQuery, redirect: (sql: string) => string): { em: EntityManager; flush: () => Promise<void> } {
  let buffered: string[] = [];
  const rows = new RowInsertCoalescer();
  const flush = async () => {
    buffered.push(...rows.end());
    if (buffered.length === 0) return;
    const text = buffered.join(';\n');
    buffered = [];
    await query(text);
  };
  const em = {
    execute: async (sql: string, params: unknown[] = [], method?: 'all' | 'get' | 'run') => {
      const target = redirect(sql);
      // `run`: the caller reads nothing back, whatever the statement's shape (a write through a `with`).
      if (method !== 'run' && returnsRows(target)) {
        await flush();
        return query(toNumberedParameters(target), params);
      }
      const ended = rows.add(target, params);
      if (ended) buffered.push(...ended);
      else buffered.push(...rows.end(), withInlineParameters(target, params));
      if (buffered.length + rows.rows >= MAX_BUFFERED) await flush();
      return [];
    },
  };
  // A stand-in with only `execute`, handed to the live handlers, which are typed for the whole
  // EntityManager: a handler that used more would fail the rebuild at once (rebuild tests run them).
  // eslint-disable-next-line no-restricted-syntax
  return { em: em as unknown as EntityManager, flush };
}

function returnsRows(sql: string): boolean {
  return /^\s*(select|with|values|show|table)\b/i.test(sql) || /\breturning\b/i.test(sql);
}
