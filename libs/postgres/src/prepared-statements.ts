import type { QueryResult } from 'pg';
import type { Row } from './pipelined-transaction';
import { queryEach } from './query-each';

/**
 * Server-side prepared statements for statements sent several to a simple-protocol round trip
 * (PipelinedTransaction, the outbox relay: queryPrepared). Postgres parses, analyses and plans every statement it receives as text;
 * for the short statements of a send that is about as much of its CPU as running them. Prepared
 * once per connection (`prepare` riding in the same round trip as the first use), a statement is
 * afterwards `execute name(literals…)`: only the literals are parsed, and once Postgres settles on
 * a generic plan, nothing is planned again until the statements are prepared afresh (below).
 */

/** A statement as `execute`: the text to prepare and the literal arguments, in order. */
export interface PreparedForm {
  /** The statement with `$1`, `$2`, … for its placeholders. */
  text: string;
  /** The parameter values, one per `$n`. */
  values: unknown[];
}

/** How old prepared statements first get before they are prepared afresh (then twice that, and so on). */
const FIRST_PLAN_AGE_MS = 1000;

/** Statement kinds `prepare` takes. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/** A statement's text with numbered placeholders, and how many. */
interface Shape {
  text: string;
  placeholders: number;
}

/** Shapes by statement, so a service's few statements are scanned once each (bounded: cleared when full). */
const shapes = new Map<string, Shape | null>();
const SHAPES_KEPT = 1000;

/**
 * The statement as text to prepare plus its values, or null when it stays a plain statement: not a
 * statement kind `prepare` takes, several statements in one, an identifier binding (`??`, which
 * writes a value into the text), or a value that formatting spreads over several literals or writes
 * in as SQL (an array is a list, `a, b`; raw SQL is SQL), so that the placeholders would not match
 * one-to-one. Placeholders are those of `em.execute` (MikroORM's formatQuery): `?` a value and
 * `\?` a literal question mark, wherever they stand.
 */
export function preparedForm(sql: string, params: unknown[]): PreparedForm | null {
  let shape = shapes.get(sql);
  if (shape === undefined) {
    shape = PREPARABLE.test(sql) && !sql.includes(';') && !sql.includes('??') ? numbered(sql) : null;
    if (shapes.size >= SHAPES_KEPT) shapes.clear();
    shapes.set(sql, shape);
  }
  if (!shape || shape.placeholders !== params.length || !params.every(isSingleLiteral)) return null;
  return { text: shape.text, values: params };
}

function numbered(sql: string): Shape {
  const chunks: string[] = [];
  let placeholders = 0;
  let from = 0;
  for (let at = sql.indexOf('?'); at !== -1; at = sql.indexOf('?', from)) {
    if (at > 0 && sql[at - 1] === '\\') chunks.push(sql.slice(from, at - 1), '?');
    else chunks.push(sql.slice(from, at), `$${++placeholders}`);
    from = at + 1;
  }
  chunks.push(sql.slice(from));
  return { text: chunks.join(''), placeholders };
}

function isSingleLiteral(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'bigint':
      return true;
    case 'object':
      return value instanceof Date || Object.getPrototypeOf(value) === Object.prototype;
    default:
      return false;
  }
}

/**
 * One connection's prepared statements, by text. A name is recorded only after the round trip that
 * prepared it succeeded; any failure forgets them all and deallocates them on the next round trip
 * (a failed round trip may or may not have run its `prepare`s, and prepared statements outlive a
 * rollback). At `capacity` they are all deallocated before the next round trip and preparing starts
 * over, which bounds what a connection holds when statement texts vary (batch sizes are written
 * into some of them).
 *
 * They are also all prepared afresh a second after the connection's first round trip, then two,
 * four, … seconds after that, and from then on every `maxPlanAgeMs`: a generic plan is fixed by the
 * table sizes of a statement's first executions, and Postgres plans it again only when the tables
 * are analysed. Tables start empty and grow by thousands of rows a minute, and where nothing
 * analyses them (autovacuum off) a join planned against ten pages, a seq scan into a hash, stayed a
 * seq scan of the whole table on every execution (messaging's lookup of held Idempotency-Keys, 5.8
 * ms per send batch after 35 000 sends by auto_explain, and growing). Preparing again costs a few
 * custom plans per statement.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();
  private readonly pending = new Map<string, string>();
  private next = 0;
  private deallocate = false;
  private planAgeMs = FIRST_PLAN_AGE_MS;
  private replanAt: number;

  constructor(
    private readonly capacity = 256,
    private readonly now: () => number = Date.now,
    private readonly maxPlanAgeMs = 60_000,
  ) {
    this.replanAt = now() + this.planAgeMs;
  }

  /**
   * The SQL to send for a statement: `execute` of its prepared name, preceded by its `prepare` when
   * this connection has not prepared it yet. `literal` writes a value as a SQL literal.
   */
  sqlFor(form: PreparedForm, literal: (value: unknown) => string): string[] {
    const args = form.values.length === 0 ? '' : `(${form.values.map(literal).join(', ')})`;
    let name = this.names.get(form.text) ?? this.pending.get(form.text);
    const parts: string[] = [];
    if (name === undefined) {
      name = `ps_${++this.next}`;
      this.pending.set(form.text, name);
      parts.push(`prepare ${name} as ${form.text}`);
    }
    parts.push(`execute ${name}${args}`);
    return parts;
  }

  /** What must go first in a round trip, if anything (after a failure, or at capacity). */
  preamble(): string[] {
    if (this.names.size >= this.capacity) this.forget();
    const now = this.now();
    if (now >= this.replanAt) {
      this.planAgeMs = Math.min(this.planAgeMs * 2, this.maxPlanAgeMs);
      this.replanAt = now + this.planAgeMs;
      if (this.names.size > 0) this.forget();
    }
    if (!this.deallocate) return [];
    this.deallocate = false;
    return ['deallocate all'];
  }

  /** The round trip succeeded: its prepared statements exist on the connection. */
  succeeded(): void {
    for (const [text, name] of this.pending) this.names.set(text, name);
    this.pending.clear();
  }

  /** Something failed: nothing is known about what the connection holds. */
  failed(): void {
    this.forget();
  }

  get size(): number {
    return this.names.size;
  }

  private forget(): void {
    this.names.clear();
    this.pending.clear();
    this.deallocate = true;
  }
}

/** A part of a round trip: SQL sent as it is (one statement), or a statement prepared on its connection once and executed by name. */
export type RoundTripPart = string | PreparedForm;

/** Each connection's prepared statements (gone with the connection). */
const preparedOn = new WeakMap<object, PreparedStatements>();

/**
 * One simple-protocol round trip on a pg connection: the parts in order, a PreparedForm prepared
 * the first time this connection runs it (its `prepare` in the same round trip) and executed by name
 * after that. `literal` writes a value as a SQL literal. The rows of each part, in order. A failure
 * leaves the connection to drop its prepared statements on its next round trip.
 */
export async function queryPrepared(
  connection: { query(text: string): Promise<QueryResult> },
  parts: RoundTripPart[],
  literal: (value: unknown) => string,
): Promise<Row[][]> {
  let prepared = preparedOn.get(connection);
  if (!prepared) preparedOn.set(connection, (prepared = new PreparedStatements()));
  const texts = prepared.preamble();
  // Where each part's own result is among the round trip's results.
  const at = parts.map((part) => {
    if (typeof part === 'string') texts.push(part);
    else texts.push(...prepared.sqlFor(part, literal));
    return texts.length - 1;
  });
  let results: QueryResult[];
  try {
    results = await queryEach(connection, texts.join(';\n'));
  } catch (error) {
    prepared.failed();
    throw error;
  }
  prepared.succeeded();
  return at.map((i) => results[i].rows);
}
