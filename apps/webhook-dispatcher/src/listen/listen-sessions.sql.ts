import type { PublicEventType } from '#platform/contracts';
import { pgTextArray } from '#platform/event-store';
import type { Statement } from '#platform/postgres';
import { mediaReadyCondition } from '../deliveries/delivery-claim.sql';
import { LISTEN_SESSION_TTL_MS } from './listen-session.records';

/** The statements of ListenSessionsHandler: sessions, their cursors, and their expiry. */

/** Events a poll gives cursors to at once. */
export const SEQUENCE_BATCH = 1000;

/**
 * Opens the key's session for these types (sorted), or reopens it; an expired one is replaced: a
 * new id, so old cursors start afresh. One row: `session_id`, `last_seq`.
 */
export function openSessionStatement(s: { sessionId: string; appId: string; keyId: string; events: string[]; now: Date; expiresAt: Date }): Statement {
  return {
    sql: `insert into webhook_dispatcher.listen_sessions as s (session_id, app_id, key_id, events, last_seq, created_at, connected_at, expires_at)
         values (?, ?, ?, ?, 0, ?, ?, ?)
         on conflict (key_id, events) do update set
           session_id = case when s.expires_at <= excluded.connected_at then excluded.session_id else s.session_id end,
           last_seq = case when s.expires_at <= excluded.connected_at then 0 else s.last_seq end,
           created_at = case when s.expires_at <= excluded.connected_at then excluded.created_at else s.created_at end,
           connected_at = excluded.connected_at, expires_at = excluded.expires_at
         returning session_id, last_seq`,
    params: [s.sessionId, s.appId, s.keyId, pgTextArray(s.events), s.now, s.now, s.expiresAt],
  };
}

/** A row of lockedSessionStatement. */
export interface SessionRow {
  last_seq: string;
  connected_at: Date;
  expires_at: Date;
}

/** The app's session, locked to the commit: cursors are given out under this lock. */
export function lockedSessionStatement(appId: string, sessionId: string): Statement {
  return {
    sql: `select last_seq, connected_at, expires_at from webhook_dispatcher.listen_sessions where session_id = ? and app_id = ? for update`,
    params: [sessionId, appId],
  };
}

/** A row of sessionEventsStatement. */
export interface SessionEventRow {
  seq: string;
  event_id: string;
  type: PublicEventType;
  payload: string;
}

/** The session's events after the cursor `after`, in cursor order, whose payload is still kept. */
export function sessionEventsStatement(sessionId: string, after: number, limit: number): Statement {
  return {
    sql: `select le.seq, e.event_id, e.type, e.payload
         from webhook_dispatcher.listen_events le join webhook_dispatcher.public_events e on e.event_id = le.event_id
         where le.session_id = ? and le.seq > ? and e.payload is not null
         order by le.seq limit ?`,
    params: [sessionId, after, limit],
  };
}

/**
 * Gives the session's recorded, unread events the cursors after `lastSeq`, in recording order, at
 * most SEQUENCE_BATCH; a message.received waits for its files as a delivery does (mediaReadyCondition). One row per
 * cursor given (`seq`).
 */
export function sequenceStatement(sessionId: string, lastSeq: number, now: Date): Statement {
  return {
    sql: `with unread as (
         select le.event_id, le.recorded from webhook_dispatcher.listen_events le
         join webhook_dispatcher.public_events e on e.event_id = le.event_id
         where le.session_id = ? and le.seq is null
           and ${mediaReadyCondition('e', '?')}
         order by le.recorded limit ${SEQUENCE_BATCH}
       ), numbered as (
         select event_id, ?::bigint + row_number() over (order by recorded) as seq from unread
       )
       update webhook_dispatcher.listen_events le set seq = n.seq from numbered n
       where le.session_id = ? and le.event_id = n.event_id
       returning le.seq`,
    params: [sessionId, now, lastSeq, sessionId],
  };
}

/** The session's last cursor given, and its life restarted at `now`. */
export function touchSessionStatement(sessionId: string, lastSeq: number, now: Date): Statement {
  return {
    sql: `update webhook_dispatcher.listen_sessions set last_seq = ?, connected_at = ?, expires_at = ? where session_id = ?`,
    params: [lastSeq, now, new Date(now.getTime() + LISTEN_SESSION_TTL_MS), sessionId],
  };
}

/** Expired sessions, and records older than a session's life (nobody can still be owed them). */
export function sweepStatements(now: Date): Statement[] {
  return [
    { sql: `delete from webhook_dispatcher.listen_sessions where expires_at <= ?`, params: [now] },
    { sql: `delete from webhook_dispatcher.listen_events where created_at < ?`, params: [new Date(now.getTime() - LISTEN_SESSION_TTL_MS)] },
  ];
}
