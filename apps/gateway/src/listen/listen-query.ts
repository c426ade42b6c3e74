import { LISTEN_EVENT_TYPES } from '@platform/contracts';
import { QueryReader } from '../http/query-reader';

/** Where a stream resumes: the Last-Event-ID it was given, `<sessionId>.<seq>`. */
export interface ListenCursor {
  sessionId: string;
  seq: number;
}

/** GET /listen's query: `events`, a comma-separated list of listen types (default all); anything else is 400 invalid_request. */
export function parseListenQuery(query: URLSearchParams): { events: string[] } {
  const reader = new QueryReader(query);
  for (const name of new Set(query.keys())) {
    if (name !== 'events') reader.details.push({ field: name, issue: 'is not a known parameter' });
  }
  const raw = reader.single('events');
  let events: string[] = [...LISTEN_EVENT_TYPES].sort();
  if (raw !== null) {
    const asked = raw.split(',').map((type) => type.trim());
    const unknown = asked.filter((type) => !(LISTEN_EVENT_TYPES as readonly string[]).includes(type));
    if (asked.length === 0 || unknown.length > 0) reader.details.push({ field: 'events', issue: `must be a comma-separated list of ${LISTEN_EVENT_TYPES.join(', ')}` });
    else events = [...new Set(asked)].sort();
  }
  reader.done();
  return { events };
}

/** The cursor in a Last-Event-ID header, or null when there is none or it is not one of ours (the stream then starts afresh). */
export function parseLastEventId(header: string | string[] | undefined): ListenCursor | null {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value ? /^(ls_[0-9A-Z]{26})\.(\d{1,15})$/.exec(value.trim()) : null;
  return match ? { sessionId: match[1], seq: Number(match[2]) } : null;
}

export function formatCursor(cursor: ListenCursor): string {
  return `${cursor.sessionId}.${cursor.seq}`;
}
