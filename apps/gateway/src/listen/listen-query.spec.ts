import { DomainError } from '#platform/errors';
import { formatCursor, parseLastEventId, parseListenQuery } from './listen-query';

const query = (s: string) => new URLSearchParams(s);

function details(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    return { code: (error as DomainError).code, fields: ((error as DomainError).details ?? []).map((d) => d.field) };
  }
  throw new Error('expected a refusal');
}

describe('parseListenQuery', () => {
  it('defaults to every type a listen session can receive (webhook.test is not one)', () => {
    expect(parseListenQuery(query('')).events).toEqual(['app.status_changed', 'consent.updated', 'message.received', 'message.status', 'template.status']);
  });

  it('takes a comma-separated list, trimmed, without repeats, sorted', () => {
    expect(parseListenQuery(query('events=message.status, message.received,message.status')).events).toEqual(['message.received', 'message.status']);
  });

  it('refuses unknown types, an empty list, webhook.test and unknown parameters, all at once', () => {
    expect(details(() => parseListenQuery(query('events=message.sent')))).toEqual({ code: 'invalid_request', fields: ['events'] });
    expect(details(() => parseListenQuery(query('events=')))).toEqual({ code: 'invalid_request', fields: ['events'] });
    expect(details(() => parseListenQuery(query('events=webhook.test')))).toEqual({ code: 'invalid_request', fields: ['events'] });
    expect(details(() => parseListenQuery(query('since=1&events=x')))).toEqual({ code: 'invalid_request', fields: ['since', 'events'] });
  });
});

describe('parseLastEventId', () => {
  it('reads a cursor it wrote', () => {
    const cursor = { sessionId: 'ls_01JD0000000000000000000000', seq: 42 };
    expect(parseLastEventId(formatCursor(cursor))).toEqual(cursor);
  });

  it('ignores what is not a cursor (the stream starts afresh)', () => {
    for (const value of [undefined, '', 'evt_1', 'ls_01JD0000000000000000000000', 'ls_01JD0000000000000000000000.-1', 'ls_x.1'])
      expect(parseLastEventId(value)).toBeNull();
  });
});
