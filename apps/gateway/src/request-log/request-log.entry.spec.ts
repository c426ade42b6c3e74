import { errorEnvelope } from '#platform/errors';
import { boundedEnvelope, MAX_LOGGED_ENVELOPE, MAX_LOGGED_PATH, requestLogRow, type SeenRequest } from './request-log.entry';

const key = { appId: 'app_1', prefix: 'qk_sb_AbCd' };
const seen = (over: Partial<SeenRequest> = {}): SeenRequest => ({
  requestId: 'req_1',
  atMs: Date.parse('2026-12-05T10:00:00Z'),
  method: 'POST',
  path: '/platform/v1/messages',
  status: 202,
  durationMs: 12.345,
  key,
  refusal: null,
  ...over,
});
const envelope = (details?: { field: string; issue: string }[]) =>
  errorEnvelope({ code: 'invalid_request', requestId: 'req_1', docsUrl: 'https://docs.example', details });

describe('request log row', () => {
  it('keeps what happened and the key by its prefix only; no envelope for a success', () => {
    expect(requestLogRow(seen(), () => null)).toEqual({
      appId: 'app_1',
      requestId: 'req_1',
      atMs: Date.parse('2026-12-05T10:00:00Z'),
      method: 'POST',
      path: '/platform/v1/messages',
      status: 202,
      errorCode: null,
      keyPrefix: 'qk_sb_AbCd',
      durationMs: 12.3,
      errorEnvelope: null,
    });
  });

  it('keeps the envelope and its code for a refusal', () => {
    const sent = envelope([{ field: 'to.appUserId', issue: 'must be a string' }]);
    const row = requestLogRow(seen({ status: 400, refusal: { envelope: sent, jsonLength: JSON.stringify(sent).length } }), () => null);
    expect([row?.errorCode, row?.errorEnvelope]).toEqual(['invalid_request', sent]);
  });

  it('names the app of a refusal before the key was found only by a key this replica knows; else nothing is kept', () => {
    const refused = seen({ status: 401, key: null });
    expect(requestLogRow(refused, () => null)).toBeNull();
    expect(requestLogRow(refused, () => ({ appId: 'app_2', prefix: 'qk_live_WxYz' }))).toMatchObject({ appId: 'app_2', keyPrefix: 'qk_live_WxYz' });
    // A key found by the pipeline is not looked up again.
    expect(
      requestLogRow(seen(), () => {
        throw new Error('looked up');
      })?.appId,
    ).toBe('app_1');
  });

  it('cuts a long path', () => {
    expect(requestLogRow(seen({ path: `/platform/v1/${'a'.repeat(5000)}` }), () => null)?.path).toHaveLength(MAX_LOGGED_PATH);
  });
});

describe('bounded envelope', () => {
  it('keeps a small envelope as sent', () => {
    const sent = envelope([{ field: 'text', issue: 'must be shorter' }]);
    expect(boundedEnvelope(sent, JSON.stringify(sent).length)).toBe(sent);
  });

  it('keeps the first details that fit of a big one, each cut short, within the bound', () => {
    const details = Array.from({ length: 500 }, (_, i) => ({ field: `field${i}${'x'.repeat(300)}`, issue: 'is not allowed' }));
    const sent = envelope(details);
    const kept = boundedEnvelope(sent, JSON.stringify(sent).length);
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(MAX_LOGGED_ENVELOPE);
    expect(kept.error).toMatchObject({ code: 'invalid_request', requestId: 'req_1', type: 'invalid_request_error' });
    expect(kept.error.details!.length).toBeGreaterThan(5);
    expect(kept.error.details![0].field).toMatch(/^field0x+…$/);
    expect(kept.error.details![0].field.length).toBe(200);
  });
});
