import { PUBLIC_BASE_PATH, requestIdTimeMs, type ListRequestLogCall } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { RequestLogRow } from './request-log.entry';

/** How long the table keeps a request (architecture section 12): the pruner deletes older rows, the list never shows them. */
export const REQUEST_LOG_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * An entry of a batch is a JSON array (smaller and quicker to write than an object with names):
 * request id, time (ms), method, path, status, error code, key prefix, duration (ms), envelope.
 * ENTRY reads them out of `b.entries` as the columns of a row `e`.
 */
const ENTRY = `json_array_elements(b.entries) as x(v),
  lateral (select v->>0 as request_id, to_timestamp((v->>1)::bigint / 1000.0) as at, v->>2 as method, v->>3 as path, (v->>4)::int as status,
    v->>5 as error_code, v->>6 as key_prefix, (v->>7)::real as duration_ms, v->8 as error_envelope) e`;
const COLUMNS = 'e.request_id, e.at, e.method, e.path, e.status, e.error_code, e.key_prefix, e.duration_ms';

/** Batches a listing page reads at most; older entries are the next page's (see listRequestLogStatement). */
export const BATCHES_PER_PAGE = 40;
/** A batch holds requests whose ids were made within this span, so a request is found among the batches that began shortly before its id's time. */
export const BATCH_SPAN_MS = 60_000;

/** A row as the list and get statements return it. */
export interface RequestLogDbRow {
  request_id: string;
  at: Date | string;
  method: string;
  path: string;
  status: number;
  error_code: string | null;
  key_prefix: string | null;
  duration_ms: number;
  error_envelope?: unknown;
}

/**
 * One INSERT for a whole flush (ADR 0216): a row per app and minute of request ids holding its
 * requests as one JSON array, so Postgres writes a few rows a second however many requests there
 * are, instead of a row and three index entries per request. The batches travel as one JSON
 * parameter; each keeps the span of its requests' times and of its ids' times (for a lookup by id).
 */
export function insertRequestLogStatement(rows: readonly RequestLogRow[]): Statement {
  interface Batch {
    app_id: string;
    minute: number;
    first_at: number;
    last_at: number;
    first_id_ms: number;
    last_id_ms: number;
    entries: unknown[];
  }
  const batches: Batch[] = [];
  // Rows come in time order, so an app's current batch is nearly always the one to add to.
  const current = new Map<string, Batch>();
  for (const r of rows) {
    const idMs = requestIdTimeMs(r.requestId) ?? r.atMs;
    const minute = Math.floor(idMs / BATCH_SPAN_MS);
    let batch = current.get(r.appId);
    if (!batch || batch.minute !== minute) {
      batch = batches.find((b) => b.app_id === r.appId && b.minute === minute);
      if (!batch) batches.push((batch = { app_id: r.appId, minute, first_at: r.atMs, last_at: r.atMs, first_id_ms: idMs, last_id_ms: idMs, entries: [] }));
      current.set(r.appId, batch);
    }
    if (r.atMs < batch.first_at) batch.first_at = r.atMs;
    if (r.atMs > batch.last_at) batch.last_at = r.atMs;
    if (idMs < batch.first_id_ms) batch.first_id_ms = idMs;
    if (idMs > batch.last_id_ms) batch.last_id_ms = idMs;
    batch.entries.push([
      r.requestId,
      r.atMs,
      storable(r.method),
      storable(r.path),
      r.status,
      r.errorCode,
      r.keyPrefix,
      r.durationMs,
      r.errorEnvelope && JSON.parse(JSON.stringify(r.errorEnvelope, storableText)),
    ]);
  }
  const records = batches.map((b) => ({
    app_id: b.app_id,
    first_at: b.first_at,
    last_at: b.last_at,
    first_id_ms: b.first_id_ms,
    last_id_ms: b.last_id_ms,
    entries: b.entries,
  }));
  return {
    sql: `insert into gateway.request_log_batches (app_id, first_at, last_at, first_id_ms, last_id_ms, entries)
      select app_id, to_timestamp(first_at / 1000.0), to_timestamp(last_at / 1000.0), first_id_ms, last_id_ms, entries
      from json_to_recordset(?::json) as b(app_id text, first_at bigint, last_at bigint, first_id_ms bigint, last_id_ms bigint, entries json)`,
    params: [JSON.stringify(records)],
  };
}

/** Postgres JSON text holds neither NUL nor an unpaired surrogate. */
const NOT_STORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** The cheap first look: text without NUL or any surrogate (nearly all of it) needs no replacing. */
const MAY_NOT_BE_STORABLE = /[\u0000\ud800-\udfff]/;

/** The client's own words (a path, a method) as text Postgres can read back out of the batch. */
function storable(text: string): string {
  return MAY_NOT_BE_STORABLE.test(text) ? text.replace(NOT_STORABLE, '\uFFFD') : text;
}

/** One hostile envelope (a member name the client chose, echoed in `details`) must not sink its batch. */
function storableText(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? storable(value) : value;
}

/** Where a listing goes on from: the last row it showed, or the newest time the batches it did not read may hold. */
export interface RequestLogCursor {
  at: string;
  requestId: string;
}

/** The highest request id of a millisecond (collation "C"): a cursor at it takes every request of that millisecond. */
export const LAST_REQUEST_ID = `req_${'z'.repeat(24)}`;

/** The batches a page may read from: the app's, in the window, begun at or before the cursor; newest first. */
function pageBatches(q: ListRequestLogCall, cursor: RequestLogCursor | null, nowMs: number): { where: string; params: unknown[] } {
  return {
    where: `app_id = ? and last_at >= ? and first_at <= ?`,
    params: [q.appId, new Date(nowMs - REQUEST_LOG_RETENTION_MS), cursor ? new Date(cursor.at) : 'infinity'],
  };
}

/**
 * The newest time the batches past the page's BATCHES_PER_PAGE may hold (the next batch's last_at),
 * or no row when the page reads them all: a page shows only requests after it, and goes on from it.
 */
export function requestLogEdgeStatement(q: ListRequestLogCall, cursor: RequestLogCursor | null, nowMs: number): Statement {
  const batches = pageBatches(q, cursor, nowMs);
  return {
    sql: `select last_at from gateway.request_log_batches where ${batches.where} order by last_at desc offset ? limit 1`,
    params: [...batches.params, BATCHES_PER_PAGE],
  };
}

/**
 * The app's requests of the retention window newest first, filtered, after `cursor` and after
 * `edge` (requestLogEdgeStatement), out of the newest BATCHES_PER_PAGE batches that may hold them;
 * one row more than `limit` tells whether the page is full. Rides the (app_id, last_at) index.
 */
export function listRequestLogStatement(q: ListRequestLogCall, cursor: RequestLogCursor | null, nowMs: number, edge: Date | null): Statement {
  const batches = pageBatches(q, cursor, nowMs);
  const where = ['e.at >= ?'];
  const params: unknown[] = [...batches.params, BATCHES_PER_PAGE, new Date(nowMs - REQUEST_LOG_RETENTION_MS)];
  if (q.statusClass) {
    const floor = Number(q.statusClass[0]) * 100;
    where.push('e.status >= ? and e.status < ?');
    params.push(floor, floor + 100);
  }
  if (q.path) {
    const path = fullPath(q.path);
    if (q.pathMatch === 'exact') {
      where.push('e.path = ?');
      params.push(path);
    } else {
      where.push(`e.path like ? escape '\\'`);
      params.push(`${path.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
  }
  if (q.keyPrefix) {
    where.push('e.key_prefix = ?');
    params.push(q.keyPrefix);
  }
  if (cursor) {
    where.push('(e.at, e.request_id collate "C") < (?, ? collate "C")');
    params.push(new Date(cursor.at), cursor.requestId);
  }
  if (edge) {
    where.push('e.at > ?');
    params.push(edge);
  }
  params.push(q.limit + 1);
  return {
    sql: `select ${COLUMNS} from (select entries from gateway.request_log_batches where ${batches.where} order by last_at desc limit ?) b,
      ${ENTRY}
      where ${where.join(' and ')} order by e.at desc, e.request_id collate "C" desc limit ?`,
    params,
  };
}

/**
 * One request of the app, with its envelope, from the batches begun up to a batch's span before its
 * id's time and ended after it; another app's request id, or one not made by the gateway, finds nothing.
 */
export function getRequestLogStatement(appId: string, requestId: string, nowMs: number): Statement | null {
  const idMs = requestIdTimeMs(requestId);
  if (idMs === null) return null;
  return {
    sql: `select ${COLUMNS}, e.error_envelope from gateway.request_log_batches b, ${ENTRY}
      where b.app_id = ? and b.first_id_ms between ? and ? and b.last_id_ms >= ? and e.request_id = ? and e.at >= ? limit 1`,
    params: [appId, idMs - BATCH_SPAN_MS, idMs, idMs, requestId, new Date(nowMs - REQUEST_LOG_RETENTION_MS)],
  };
}

/** Paths are recorded as requested, base included; a filter may leave the base out. */
export function fullPath(path: string): string {
  if (path === PUBLIC_BASE_PATH || path.startsWith(`${PUBLIC_BASE_PATH}/`)) return path;
  return `${PUBLIC_BASE_PATH}${path.startsWith('/') ? '' : '/'}${path}`;
}
