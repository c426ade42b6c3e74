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

/** How many bindings (`?` outside quotes) a statement has. */
export function countBindings(sql: string): number {
  let n = 0;
  mapBindings(sql, () => {
    n++;
    return '';
  });
  return n;
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
export function closingQuote(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) i++;
    else return i;
  }
  throw new Error(`unterminated ${quote} in: ${sql}`);
}
