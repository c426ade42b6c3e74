import { sseComment, sseEvent, sseRetry } from './sse-frame';

describe('SSE frames', () => {
  it('writes id, event and the data as one data line, then a blank line', () => {
    const body = '{"id":"evt_1","type":"message.status","data":{"text":"a: b"}}';
    expect(sseEvent({ id: 'ls_1.7', event: 'message.status', data: body })).toBe(`id: ls_1.7\nevent: message.status\ndata: ${body}\n\n`);
  });

  it('splits data with line breaks into several data lines, and leaves out fields not given', () => {
    expect(sseEvent({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n');
  });

  it('refuses an id or event name with a line break, which would end the field early', () => {
    expect(() => sseEvent({ id: 'a\nid: b', data: 'x' })).toThrow();
    expect(() => sseEvent({ event: 'x\r', data: 'x' })).toThrow();
  });

  it('writes comments and the retry field', () => {
    expect(sseComment('keep-alive')).toBe(': keep-alive\n\n');
    expect(sseComment('a\nb')).toBe(': a b\n\n');
    expect(sseRetry(1500)).toBe('retry: 1500\n\n');
  });
});
