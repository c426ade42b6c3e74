import { DomainError } from '#platform/errors';
import { CURSOR_LIFETIME_MS, decodeConsentCursor, encodeConsentCursor, type ConsentCursor } from './consent-cursor';

const now = Date.parse('2026-11-22T10:00:00Z');
const cursor: ConsentCursor = {
  snapshot: 42,
  updatedAt: '2026-11-22T09:59:00.123Z',
  appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA',
  status: 'opted_in',
  startedAtMs: now - 1000,
};

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('GET /consents cursor', () => {
  it('round-trips', () => {
    expect(decodeConsentCursor(encodeConsentCursor(cursor), 'opted_in', now)).toEqual(cursor);
  });

  it('is URL-safe', () => {
    expect(encodeConsentCursor(cursor)).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('refuses garbage with invalid_request on the cursor field', () => {
    for (const raw of ['', 'abc', Buffer.from('[2,1]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url'), 'x'.repeat(600)]) {
      const error = refusal(() => decodeConsentCursor(raw, null, now));
      expect(error.code).toBe('invalid_request');
      expect(error.details).toEqual([{ field: 'cursor', issue: 'is not a cursor from a previous page' }]);
    }
  });

  it('refuses a cursor made for another status filter', () => {
    expect(refusal(() => decodeConsentCursor(encodeConsentCursor(cursor), null, now)).details?.[0].issue).toMatch(/another status filter/);
  });

  it('refuses a cursor older than its lifetime', () => {
    const old = encodeConsentCursor({ ...cursor, startedAtMs: now - CURSOR_LIFETIME_MS - 1 });
    expect(refusal(() => decodeConsentCursor(old, 'opted_in', now)).details?.[0].issue).toMatch(/expired/);
  });

  it('refuses fields of the wrong type', () => {
    const bad = Buffer.from(JSON.stringify([1, -1, 'not a date', 5, 'maybe', 'x'])).toString('base64url');
    expect(refusal(() => decodeConsentCursor(bad, null, now)).code).toBe('invalid_request');
  });
});
