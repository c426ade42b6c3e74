import { PUBLIC_BASE_PATH, type ListRequestLogCall } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { RequestLogRow } from './request-log.entry';

/** How long the table keeps a request (architecture section 12): the pruner deletes older rows, the list never shows them. */
export const REQUEST_LOG_RETENTION_MS = 7 * 24 * 3600 * 1000;

const COLUMNS = 'request_id, at, method, path, status, error_code, key_prefix, duration_ms';

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
 * One INSERT for a whole batch: the rows travel as one JSON parameter and become a record set in
 * Postgres, so a batch of any size is one statement with one parameter. A request id seen twice
 * is kept once.
 */
export function insertRequestLogStatement(rows: readonly RequestLogRow[]): Statement {
  const records = rows.map((r) => ({
    app_id: r.appId,
    request_id: r.requestId,
    at: new Date(r.atMs).toISOString(),
    method: r.method,
    path: r.path,
    status: r.status,
    error_code: r.errorCode,
    key_prefix: r.keyPrefix,
    duration_ms: r.durationMs,
    error_envelope: r.errorEnvelope,
  }));
  return {
    sql: `insert into gateway.request_log (app_id, ${COLUMNS}, error_envelope)
      select app_id, ${COLUMNS}, error_envelope
      from json_to_recordset(?::json) as r(app_id text, request_id text, at timestamptz, method text, path text, status smallint,
        error_code text, key_prefix text, duration_ms real, error_envelope json)
      on conflict do nothing`,
    params: [JSON.stringify(records, storableText)],
  };
}

/** Postgres JSON text holds neither NUL nor an unpaired surrogate. */
const NOT_STORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One hostile envelope (a member name the client chose, echoed in `details`) must not sink its batch. */
function storableText(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(NOT_STORABLE, '\uFFFD') : value;
}

/** Where a listing goes on from: the last row it showed. */
export interface RequestLogCursor {
  at: string;
  requestId: string;
}

/**
 * The app's requests of the retention window newest first, filtered, after `cursor`; one row more
 * than `limit` tells whether there is a next page. Rides the (app_id, at desc, request_id desc) index.
 */
export function listRequestLogStatement(q: ListRequestLogCall, cursor: RequestLogCursor | null, nowMs: number): Statement {
  const where = ['app_id = ?', 'at >= ?'];
  const params: unknown[] = [q.appId, new Date(nowMs - REQUEST_LOG_RETENTION_MS)];
  if (q.statusClass) {
    const floor = Number(q.statusClass[0]) * 100;
    where.push('status >= ? and status < ?');
    params.push(floor, floor + 100);
  }
  if (q.path) {
    const path = fullPath(q.path);
    if (q.pathMatch === 'exact') {
      where.push('path = ?');
      params.push(path);
    } else {
      where.push(`path like ? escape '\\'`);
      params.push(`${path.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    }
  }
  if (q.keyPrefix) {
    where.push('key_prefix = ?');
    params.push(q.keyPrefix);
  }
  if (cursor) {
    where.push('(at, request_id) < (?, ?)');
    params.push(new Date(cursor.at), cursor.requestId);
  }
  params.push(q.limit + 1);
  return { sql: `select ${COLUMNS} from gateway.request_log where ${where.join(' and ')} order by at desc, request_id desc limit ?`, params };
}

/** One request of the app, with its envelope; another app's request id finds nothing. */
export function getRequestLogStatement(appId: string, requestId: string, nowMs: number): Statement {
  return {
    sql: `select ${COLUMNS}, error_envelope from gateway.request_log where app_id = ? and request_id = ? and at >= ?`,
    params: [appId, requestId, new Date(nowMs - REQUEST_LOG_RETENTION_MS)],
  };
}

/** Paths are recorded as requested, base included; a filter may leave the base out. */
export function fullPath(path: string): string {
  if (path === PUBLIC_BASE_PATH || path.startsWith(`${PUBLIC_BASE_PATH}/`)) return path;
  return `${PUBLIC_BASE_PATH}${path.startsWith('/') ? '' : '/'}${path}`;
}
