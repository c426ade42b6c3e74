import { pgTextArray } from '#platform/event-store';
import { jsonTexts, type Statement } from '#platform/postgres';

/** Channel a commit that records events for listen sessions notifies, with the session id as payload. */
export const LISTEN_CHANNEL = 'webhook_dispatcher_listen';

/** Id prefix of a listen session (it never appears in the API, only in the stream's cursors). */
export const LISTEN_SESSION_PREFIX = 'ls_';

/** A session lives this long after its last connection, keeping what happened while nobody listened. */
export const LISTEN_SESSION_TTL_MS = 24 * 3600 * 1000;

/** The apps' live listen sessions (for the public-events consumer's read; the ids as enabledEndpointsStatement sends them, for a generic plan). */
export function liveSessionsStatement(appIds: string[], now: Date): Statement {
  return {
    sql: `select app_id, session_id, events from webhook_dispatcher.listen_sessions where app_id in ${jsonTexts(appIds.length)} and expires_at > ? order by session_id`,
    params: [JSON.stringify(appIds), now],
  };
}

/**
 * Records a public event for listen sessions, and wakes their readers at commit. A repeat of the
 * same event (a redelivered Kafka message) adds nothing.
 */
export function listenEventsStatement(args: { sessionIds: string[]; eventId: string; now: Date }): Statement {
  return {
    sql: `with inserted as (
            insert into webhook_dispatcher.listen_events (session_id, event_id, created_at)
            select s, ?, ? from unnest(?::text[]) as s
            on conflict do nothing returning session_id)
          select pg_notify(?, session_id) from inserted`,
    params: [args.eventId, args.now, pgTextArray(args.sessionIds), LISTEN_CHANNEL],
  };
}
