import { PUBLIC_BASE_PATH, requestIdTimeMs, type ListRequestLogCall } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { RequestLogRow } from './request-log.entry';

/** How long the table keeps a request (architecture section 12): the pruner deletes older rows, the list never shows them. */
export const REQUEST_LOG_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The columns of an entry, as the list and get statements read them out of a batch's JSON. */
const ENTRY = `e(request_id text, at timestamptz, method text, path text, status int, error_code text, key_prefix text, duration_ms real, error_envelope json)`;
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
  const batches = new Map<string, { app_id: string; first_at: number; last_at: number; first_id_ms: number; last_id_ms: number; entries: unknown[] }>();
  for (const r of rows) {
    const idMs = requestIdTimeMs(r.requestId) ?? r.atMs;
    const key = `${r.appId} ${Math.floor(idMs / BATCH_SPAN_MS)}`;
    let batch = batches.get(key);
    if (!batch) batches.set(key, (batch = { app_id: r.appId, first_at: r.atMs, last_at: r.atMs, first_id_ms: idMs, last_id_ms: idMs, entries: [] }));
    batch.first_at = Math.min(batch.first_at, r.atMs);
    batch.last_at = Math.max(batch.last_at, r.atMs);
    batch.first_id_ms = Math.min(batch.first_id_ms, idMs);
    batch.last_id_ms = Math.max(batch.last_id_ms, idMs);
    batch.entries.push({
      request_id: r.requestId,
      at: new Date(r.atMs).toISOString(),
      method: storable(r.method),
      path: storable(r.path),
      status: r.status,
      error_code: r.errorCode,
      key_prefix: r.keyPrefix,
      duration_ms: r.durationMs,
      error_envelope: r.errorEnvelope && JSON.parse(JSON.stringify(r.errorEnvelope, storableText)),
    });
  }
  const records = [...batches.values()].map((b) => ({ ...b, first_at: new Date(b.first_at).toISOString(), last_at: new Date(b.last_at).toISOString() }));
  return {
    sql: `insert into gateway.request_log_batches (app_id, first_at, last_at, first_id_ms, last_id_ms, entries)
      select app_id, first_at, last_at, first_id_ms, last_id_ms, entries
      from json_to_recordset(?::json) as b(app_id text, first_at timestamptz, last_at timestamptz, first_id_ms bigint, last_id_ms bigint, entries json)`,
    params: [JSON.stringify(records)],
  };
}

/** Postgres JSON text holds neither NUL nor an unpaired surrogate. */
const NOT_STORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const HAS_NOT_STORABLE = new RegExp(NOT_STORABLE.source);

/** The client's own words (a path, a method) as text Postgres can read back out of the batch. */
function storable(text: string): string {
  return HAS_NOT_STORABLE.test(text) ? text.replace(NOT_STORABLE, '\uFFFD') : text;
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
      json_to_recordset(b.entries) as ${ENTRY}
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
    sql: `select ${COLUMNS}, e.error_envelope from gateway.request_log_batches b, json_to_recordset(b.entries) as ${ENTRY}
      where b.app_id = ? and b.first_id_ms between ? and ? and b.last_id_ms >= ? and e.request_id = ? and e.at >= ? limit 1`,
    params: [appId, idMs - BATCH_SPAN_MS, idMs, idMs, requestId, new Date(nowMs - REQUEST_LOG_RETENTION_MS)],
  };
}

/** Paths are recorded as requested, base included; a filter may leave the base out. */
export function fullPath(path: string): string {
  if (path === PUBLIC_BASE_PATH || path.startsWith(`${PUBLIC_BASE_PATH}/`)) return path;
  return `${PUBLIC_BASE_PATH}${path.startsWith('/') ? '' : '/'}${path}`;
}
