import { newRequestId, requestIdTimeMs } from './ids';

describe('request ids', () => {
  it('carry the millisecond they were made, so they sort by time and a log finds them by it', () => {
    const at = Date.parse('2026-12-04T23:59:59.999Z');
    const id = newRequestId(at);
    expect(id).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(requestIdTimeMs(id)).toBe(at);
    const later = newRequestId(at + 1);
    // Ordered as bytes (collation "C"): the time comes first and base62 digits are in ASCII order.
    expect(Buffer.compare(Buffer.from(id.slice(0, 12)), Buffer.from(later.slice(0, 12)))).toBe(-1);
    expect(newRequestId(at)).not.toBe(id);
  });

  it('read no time from what is not one of them', () => {
    expect(requestIdTimeMs('req_x')).toBeNull();
    expect(requestIdTimeMs('req_0000000000000000000000-_')).toBeNull();
    expect(requestIdTimeMs('msg_000000000000000000000000')).toBeNull();
  });
});
