import type { EntityManager } from '@mikro-orm/postgresql';
import type { RebuildQuery } from './projection-rebuild';

/**
 * knex raw SQL (what `em.execute` takes) to pg's numbered parameters: each `?` outside quotes
 * becomes `$1`, `$2`, … and `\?` a literal question mark. Identifier bindings (`??`) are refused:
 * no projection handler uses them, and guessing their quoting would be worse than failing.
 */
export function toNumberedParameters(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === '\\' && sql[i + 1] === '?') {
      out += '?';
      i++;
    } else if (c === '?') {
      if (sql[i + 1] === '?') throw new Error(`identifier bindings (??) are not supported in a rebuild: ${sql}`);
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

/** Index of the quote closing the one at `start` (a doubled quote is an escaped one). */
function closingQuote(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) i++;
    else return i;
  }
  throw new Error(`unterminated ${quote} in: ${sql}`);
}

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

/**
 * The part of MikroORM's EntityManager a projection handler uses (`execute` of raw SQL), over the
 * rebuild's own connection, with the live tables' names pointing at the copies. Handlers are the
 * live consumers' own code, so a rebuild applies exactly what the service applies.
 */
export function rebuildEntityManager(query: RebuildQuery, redirect: (sql: string) => string): EntityManager {
  const em = {
    execute: async (sql: string, params: unknown[] = []) => query(toNumberedParameters(redirect(sql)), params),
  };
  return em as unknown as EntityManager;
}
