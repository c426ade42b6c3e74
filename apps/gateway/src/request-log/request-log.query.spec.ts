import { isDomainError } from '#platform/errors';
import { decodeRequestLogCursor, encodeRequestLogCursor, parseGetRequestLogCall, parseListRequestLogCall } from './request-log.query';
import { newRequestId } from '#platform/contracts';
import {
  BATCH_SPAN_MS,
  BATCHES_PER_PAGE,
  fullPath,
  getRequestLogStatement,
  insertRequestLogStatement,
  listRequestLogStatement,
  requestLogEdgeStatement,
} from './request-log.sql';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (isDomainError(error)) return { code: error.code, fields: (error.details ?? []).map((d) => d.field) };
    throw error;
  }
  throw new Error('accepted');
};

describe('request log queries', () => {
  it('takes a list call with its defaults, and refuses every bad field by name', () => {
    expect(parseListRequestLogCall({ appId: 'app_1' }).call).toEqual({
      appId: 'app_1',
      statusClass: null,
      path: null,
      pathMatch: 'prefix',
      keyPrefix: null,
      limit: 50,
      cursor: null,
    });
    expect(
      refusal(() =>
        parseListRequestLogCall({ appId: 'x', statusClass: '3xx', path: '/a?b', pathMatch: 'like', keyPrefix: 'sk_1', limit: 101, cursor: 'nope' }),
      ),
    ).toEqual({ code: 'invalid_request', fields: ['appId', 'statusClass', 'path', 'pathMatch', 'keyPrefix', 'limit', 'cursor'] });
  });

  it('pages by an opaque cursor of time and request id', () => {
    const cursor = encodeRequestLogCursor({ at: '2026-12-05T10:00:00.000Z', requestId: 'req_abc' });
    expect(decodeRequestLogCursor(cursor)).toEqual({ at: '2026-12-05T10:00:00.000Z', requestId: 'req_abc' });
    expect(parseListRequestLogCall({ appId: 'app_1', cursor }).cursor).toEqual({ at: '2026-12-05T10:00:00.000Z', requestId: 'req_abc' });
    expect(decodeRequestLogCursor(Buffer.from('[1,"not a time","req_abc"]').toString('base64url'))).toBeNull();
  });

  it('answers not_found for anything that cannot be a request id', () => {
    expect(parseGetRequestLogCall({ appId: 'app_1', requestId: 'req_abc' })).toEqual({ appId: 'app_1', requestId: 'req_abc' });
    expect(refusal(() => parseGetRequestLogCall({ appId: 'app_1', requestId: "req_' or 1=1" })).code).toBe('not_found');
  });

  it('filters by status class, path (base optional, LIKE characters literal) and key prefix, within 7 days of now, after the cursor and the edge', () => {
    const now = Date.parse('2026-12-08T00:00:00Z');
    const { call } = parseListRequestLogCall({ appId: 'app_1', statusClass: '4xx', path: '/media_%', keyPrefix: 'qk_sb_AbCd', limit: 20 });
    const edge = new Date('2026-12-06T00:00:00.000Z');
    const statement = listRequestLogStatement(call, { at: '2026-12-07T00:00:00.000Z', requestId: 'req_x' }, now, edge);
    expect(statement.sql).toMatch(/app_id = \? and last_at >= \? and first_at <= \? order by last_at desc limit \?/);
    expect(statement.sql).toMatch(
      /e\.at >= \? and e\.status >= \? and e\.status < \? and e\.path like \? escape '\\' and e\.key_prefix = \? and \(e\.at, e\.request_id collate "C"\) < \(\?, \? collate "C"\) and e\.at > \?/,
    );
    const weekAgo = new Date('2026-12-01T00:00:00Z');
    const cursorAt = new Date('2026-12-07T00:00:00.000Z');
    expect(statement.params).toEqual([
      'app_1',
      weekAgo,
      cursorAt,
      BATCHES_PER_PAGE,
      weekAgo,
      400,
      500,
      '/platform/v1/media\\_\\%%',
      'qk_sb_AbCd',
      cursorAt,
      'req_x',
      edge,
      21,
    ]);
    // The edge: the last_at of the first batch past a page's share, among the same batches.
    expect(requestLogEdgeStatement(call, null, now).params).toEqual(['app_1', weekAgo, 'infinity', BATCHES_PER_PAGE]);
    expect(fullPath('messages')).toBe('/platform/v1/messages');
    expect(fullPath('/platform/v1/messages')).toBe('/platform/v1/messages');
  });

  it('finds one request among the batches of its id time, and none for an id the gateway did not make', () => {
    const at = Date.parse('2026-12-07T12:00:00Z');
    const id = newRequestId(at);
    const statement = getRequestLogStatement('app_1', id, at);
    expect(statement?.sql).toMatch(/b\.app_id = \? and b\.first_id_ms between \? and \? and b\.last_id_ms >= \? and e\.request_id = \?/);
    expect(statement?.params?.slice(0, 5)).toEqual(['app_1', at - BATCH_SPAN_MS, at, at, id]);
    expect(getRequestLogStatement('app_1', 'req_abc', at)).toBeNull();
  });

  it('writes a flush as one INSERT with one parameter: a batch per app and minute of ids, with text Postgres JSON can hold', () => {
    const at = Date.parse('2026-12-07T12:00:00Z');
    const row = {
      appId: 'app_1',
      requestId: newRequestId(at),
      atMs: at,
      method: 'POST',
      path: '/platform/v1/messages\u0000',
      status: 400,
      errorCode: 'invalid_request',
      keyPrefix: 'qk_sb_AbCd',
      durationMs: 1.5,
      errorEnvelope: {
        error: {
          code: 'invalid_request' as const,
          message: 'm',
          type: 'invalid_request_error' as const,
          requestId: 'req_1',
          docUrl: 'd',
          details: [{ field: 'a\u0000\ud800', issue: 'is not allowed' }],
        },
      },
    };
    const second = { ...row, requestId: newRequestId(at + 5), atMs: at + 7, errorEnvelope: null };
    const otherApp = { ...row, appId: 'app_2', requestId: newRequestId(at + 1) };
    const nextMinute = { ...row, requestId: newRequestId(at + BATCH_SPAN_MS), atMs: at + BATCH_SPAN_MS };
    const statement = insertRequestLogStatement([row, second, otherApp, nextMinute]);
    expect(statement.sql.match(/insert into/g)).toHaveLength(1);
    expect(statement.params).toHaveLength(1);
    const batches = JSON.parse(statement.params![0] as string);
    expect(batches.map((b: { app_id: string; entries: unknown[] }) => [b.app_id, b.entries.length])).toEqual([
      ['app_1', 2],
      ['app_2', 1],
      ['app_1', 1],
    ]);
    expect(batches[0]).toMatchObject({ first_at: at, last_at: at + 7, first_id_ms: at, last_id_ms: at + 5 });
    // Each entry an array: request id, time, method, path, status, error code, key prefix, duration, envelope.
    expect(batches[0].entries.map((e: unknown[]) => e[0])).toEqual([row.requestId, second.requestId]);
    expect(batches[0].entries[0].slice(1, 8)).toEqual([at, 'POST', '/platform/v1/messages\uFFFD', 400, 'invalid_request', 'qk_sb_AbCd', 1.5]);
    expect(batches[0].entries[0][8].error.details[0].field).toBe('a\uFFFD\uFFFD');
    expect(batches[0].entries[1][8]).toBeNull();
  });
});
