import type { EntityManager } from '@mikro-orm/postgresql';
import type { RebuildQuery } from './projection-rebuild';
import { quoteText } from '#platform/postgres';

// pg's own conversion of a parameter to the text it sends (dates in local time with offset, arrays, JSON).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => string | Buffer | null };

/**
 * knex raw SQL (what `em.execute` takes) to pg's numbered parameters: each `?` outside quotes
 * becomes `$1`, `$2`, … and `\?` a literal question mark. Identifier bindings (`??`) are refused:
 * no projection handler uses them, and guessing their quoting would be worse than failing.
 */
export function toNumberedParameters(sql: string): string {
  let n = 0;
  return mapBindings(sql, () => `$${++n}`);
}

/**
 * The statement with its parameters written in as literals, exactly as text pg would have sent for
 * them (its own prepareValue), so several statements can travel in one simple-protocol round trip.
 * A quoted literal is of unknown type until its context types it, as a parameter is.
 */
export function withInlineParameters(sql: string, params: unknown[]): string {
  let n = 0;
  return mapBindings(sql, () => {
    if (n >= params.length) throw new Error(`more bindings than parameters in: ${sql}`);
    const value = prepareValue(params[n++]);
    if (value === null) return 'null';
    return typeof value === 'string' ? quoteText(value) : `'\\x${value.toString('hex')}'`;
  });
}

function mapBindings(sql: string, binding: () => string): string {
  let out = '';
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
      out += binding();
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

/** Statements a rebuild buffers at most before it sends them. */
const MAX_BUFFERED_STATEMENTS = 500;

/**
 * The part of MikroORM's EntityManager a projection handler uses (`execute` of raw SQL), over the
 * rebuild's own connection, with the live tables' names pointing at the copies: handlers are the
 * live code, so a rebuild applies exactly what the service applies. Statements whose result a
 * handler cannot use (no `returning`, not a query, or executed with method `run`) are buffered and sent many per round trip, with
 * their parameters inlined; they answer `[]`,
 * which is what Postgres returns for them. A statement that returns rows first sends what is
 * buffered, so every statement still runs in call order. `flush` sends the rest: call it before
 * commit. An error in a buffered statement surfaces at the next flush, failing the page.
 */
export function bufferingRebuildEntityManager(query: RebuildQuery, redirect: (sql: string) => string): { em: EntityManager; flush: () => Promise<void> } {
  let buffered: string[] = [];
  const flush = async () => {
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
      buffered.push(withInlineParameters(target, params));
      if (buffered.length >= MAX_BUFFERED_STATEMENTS) await flush();
      return [];
    },
  };
  return { em: em as unknown as EntityManager, flush };
}

function returnsRows(sql: string): boolean {
  return /^\s*(select|with|values|show|table)\b/i.test(sql) || /\breturning\b/i.test(sql);
}
