import { LISTEN_EVENT_TYPES, type ListenEventType } from '#platform/contracts';
import { readQuery, type QuerySpec } from '../http/query-params';

/** Where a stream resumes: the Last-Event-ID it was given, `<sessionId>.<seq>`. */
export interface ListenCursor {
  sessionId: string;
  seq: number;
}

/** GET /listen's parameters: what the parser reads and the document shows. */
export const LISTEN_QUERY: QuerySpec = {
  refuseUnknown: true,
  params: [
    {
      name: 'events',
      kind: 'list',
      values: LISTEN_EVENT_TYPES,
      description: 'Comma-separated event types to receive; every type but webhook.test by default.',
    },
  ],
};

/** GET /listen's query: `events`, a comma-separated list of listen types (default all); anything else is 400 invalid_request. */
export function parseListenQuery(query: URLSearchParams): { events: ListenEventType[] } {
  const { events } = readQuery(LISTEN_QUERY, query);
  return { events: (events as ListenEventType[] | null) ?? [...LISTEN_EVENT_TYPES].sort() };
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
