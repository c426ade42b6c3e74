import { BodyPrefix, excerptText, RESPONSE_EXCERPT_BYTES } from './response-excerpt';

describe('BodyPrefix', () => {
  it('keeps at most its limit however the body arrives, and knows it was cut', () => {
    const prefix = new BodyPrefix(RESPONSE_EXCERPT_BYTES);
    for (let i = 0; i < 100; i++) prefix.add(Buffer.alloc(1000, i % 256));
    expect(prefix.bytes()).toHaveLength(RESPONSE_EXCERPT_BYTES);
    expect(prefix.bytesRead).toBe(100_000);
    expect(prefix.truncated).toBe(true);
    expect([...prefix.bytes().subarray(995, 1005)]).toEqual([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]);
  });

  it('keeps a body shorter than the limit whole', () => {
    const prefix = new BodyPrefix(16);
    prefix.add(Buffer.from('hello '));
    prefix.add(Buffer.from('world'));
    expect(prefix.bytes().toString()).toBe('hello world');
    expect(prefix.truncated).toBe(false);
  });

  it('copies what it keeps: a large chunk is not held through a view of it', () => {
    const prefix = new BodyPrefix(4);
    const chunk = Buffer.from('abcdefgh');
    prefix.add(chunk);
    chunk.fill(0);
    expect(prefix.bytes().toString()).toBe('abcd');
  });
});

describe('excerptText', () => {
  it('replaces invalid UTF-8 and NUL with U+FFFD', () => {
    expect(excerptText(Buffer.from([0x6f, 0x6b, 0xff, 0x00, 0xc3, 0x28]), false)).toBe('ok\uFFFD\uFFFD\uFFFD(');
  });

  it('leaves out a character the limit cut in two, but shows a broken one at the real end', () => {
    const cut = Buffer.from('aé', 'utf8').subarray(0, 2);
    expect(excerptText(cut, true)).toBe('a');
    expect(excerptText(cut, false)).toBe('a\uFFFD');
  });
});
