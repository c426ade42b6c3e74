import { closingQuote, countBindings, withInlineParameters } from './rebuild-sql-text';

/**
 * A single-row insert whose rows can travel together: `insert into <table> [(<columns>)] values
 * (<bindings and constants>) [on conflict …]`, with no binding, subquery or function call outside
 * the row. `conflictColumns` (an upsert's `do update`) are the row positions of its conflict target.
 */
interface RowInsertShape {
  /** Unquoted and lower-cased: two spellings of one table are one table (two tables taken for one only end groups sooner). */
  table: string;
  head: string;
  row: string;
  suffix: string;
  conflictColumns: number[] | null;
}

interface OpenGroup {
  template: string;
  shape: RowInsertShape;
  rows: string[];
  /** An upsert's conflict keys so far: one statement must not update a row twice. */
  keys: Set<string> | null;
}

const ROW_INSERT = /^\s*(insert\s+into\s+([^\s(]+)\s*(?:\(([^()]*)\))?\s*values\s*)\(([^()]*)\)(\s+on\s+conflict\b[\s\S]*?)?\s*$/i;
const DO_UPDATE = /^\s+on\s+conflict\s*\(([^()]*)\)\s*do\s+update\b/i;

/**
 * Turns a run of single-row inserts of one shape into one multi-row insert, so a rebuild's
 * Postgres parses, plans and starts one statement per few hundred events instead of one per event
 * (a handler writes a row per event; the statements, not the rows, were a rebuild's cost).
 *
 * Only reorderings that cannot change the result are made: rows of one table keep their order,
 * and groups of different tables commute because such a statement reads nothing but its own row
 * and the rebuilt tables carry no triggers or foreign keys. A second shape on a table already
 * grouped, a statement of any other kind, or a repeated conflict key of an upsert (Postgres refuses
 * to update a row twice in one statement) first ends every open group.
 */
export class RowInsertCoalescer {
  private readonly shapes = new Map<string, RowInsertShape | null>();
  private groups: OpenGroup[] = [];
  private pendingRows = 0;

  /** Rows held, not yet written out as statements. */
  get rows(): number {
    return this.pendingRows;
  }

  /**
   * Takes the statement into a group and answers the statements that had to be ended first (in
   * order); null when the statement is not a row insert: the caller ends the groups (`end`) and
   * sends it after them.
   */
  add(template: string, params: unknown[]): string[] | null {
    const shape = this.shapeOf(template);
    if (!shape) return null;
    const row = withInlineParameters(`(${shape.row})`, params);
    const key = shape.conflictColumns ? conflictKey(row, shape.conflictColumns) : null;
    let ended: string[] = [];
    let group = this.groups.find((g) => g.template === template);
    const otherShapeOnTable = this.groups.some((g) => g.shape.table === shape.table && g.template !== template);
    if (otherShapeOnTable || (group && key !== null && group.keys?.has(key))) {
      ended = this.end();
      group = undefined;
    }
    if (!group) {
      group = { template, shape, rows: [], keys: key === null ? null : new Set() };
      this.groups.push(group);
    }
    group.rows.push(row);
    if (key !== null) group.keys!.add(key);
    this.pendingRows++;
    return ended;
  }

  /** Every open group as one statement, in the order the groups began. */
  end(): string[] {
    const statements = this.groups.map((g) => `${g.shape.head}${g.rows.join(', ')}${g.shape.suffix}`);
    this.groups = [];
    this.pendingRows = 0;
    return statements;
  }

  private shapeOf(template: string): RowInsertShape | null {
    let shape = this.shapes.get(template);
    if (shape === undefined) {
      shape = parseRowInsert(template);
      this.shapes.set(template, shape);
    }
    return shape;
  }
}

/** The shape of a single-row insert, or null when its rows cannot be put together safely. */
export function parseRowInsert(template: string): RowInsertShape | null {
  const m = ROW_INSERT.exec(template);
  if (!m) return null;
  const [, head, table, columnList, row, suffix = ''] = m;
  if (countBindings(head) > 0 || countBindings(suffix) > 0 || /\b(select|returning)\b/i.test(suffix)) return null;
  let conflictColumns: number[] | null = null;
  if (/\bdo\s+update\b/i.test(suffix)) {
    const target = DO_UPDATE.exec(suffix);
    if (!target || columnList === undefined) return null;
    const columns = columnList.split(',').map((c) => c.trim());
    conflictColumns = target[1].split(',').map((c) => columns.indexOf(c.trim()));
    if (conflictColumns.some((i) => i < 0) || splitRow(row).length !== columns.length) return null;
  }
  return { table: table.replace(/"/g, '').toLowerCase(), head, row, suffix, conflictColumns };
}

/** The conflict target's literals of an inlined row `( … )`. */
function conflictKey(row: string, columns: number[]): string {
  const items = splitRow(row.slice(1, -1));
  return columns.map((i) => items[i]).join('\u0000');
}

/** A row's items, split at the commas outside quotes. */
function splitRow(row: string): string[] {
  const items: string[] = [];
  let from = 0;
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (c === "'" || c === '"') i = closingQuote(row, i, c);
    else if (c === ',') {
      items.push(row.slice(from, i).trim());
      from = i + 1;
    }
  }
  items.push(row.slice(from).trim());
  return items;
}
