import { isDomainError } from '#platform/errors';
import { decodeRequestLogCursor, encodeRequestLogCursor, parseGetRequestLogCall, parseListRequestLogCall } from './request-log.query';
import { fullPath, insertRequestLogStatement, listRequestLogStatement } from './request-log.sql';

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

  it('filters by status class, path (base optional, LIKE characters literal) and key prefix, within 7 days of now', () => {
    const now = Date.parse('2026-12-08T00:00:00Z');
    const { call } = parseListRequestLogCall({ appId: 'app_1', statusClass: '4xx', path: '/media_%', keyPrefix: 'qk_sb_AbCd', limit: 20 });
    const statement = listRequestLogStatement(call, { at: '2026-12-07T00:00:00.000Z', requestId: 'req_x' }, now);
    expect(statement.sql).toMatch(/status >= \? and status < \? and path like \? escape '\\' and key_prefix = \? and \(at, request_id\) < \(\?, \?\)/);
    expect(statement.params).toEqual([
      'app_1',
      new Date('2026-12-01T00:00:00Z'),
      400,
      500,
      '/platform/v1/media\\_\\%%',
      'qk_sb_AbCd',
      new Date('2026-12-07T00:00:00.000Z'),
      'req_x',
      21,
    ]);
    expect(fullPath('messages')).toBe('/platform/v1/messages');
    expect(fullPath('/platform/v1/messages')).toBe('/platform/v1/messages');
  });

  it('writes a batch as one INSERT with one parameter, with text Postgres JSON can hold', () => {
    const row = {
      appId: 'app_1',
      requestId: 'req_1',
      atMs: 0,
      method: 'POST',
      path: '/platform/v1/messages',
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
    const statement = insertRequestLogStatement([row, { ...row, requestId: 'req_2' }]);
    expect(statement.sql.match(/insert into/g)).toHaveLength(1);
    expect(statement.params).toHaveLength(1);
    const records = JSON.parse(statement.params![0] as string);
    expect(records.map((r: { request_id: string }) => r.request_id)).toEqual(['req_1', 'req_2']);
    expect(records[0].error_envelope.error.details[0].field).toBe('a\uFFFD\uFFFD');
    expect(records[0].at).toBe('1970-01-01T00:00:00.000Z');
  });
});
