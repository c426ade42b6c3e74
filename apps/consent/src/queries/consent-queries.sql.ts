import type { ConsentSource, ConsentStatus, ErrorCode, ErrorDetail } from '#platform/contracts';
import type { Statement } from '#platform/postgres';
import type { DbTimestamp } from '#platform/service-kit';
import type { ConsentCursor } from './consent-cursor';

/** The statements of ConsentQueriesHandler: a user's consent and window, the consent listing, a simulator call's outcome. */

/** A consent, as the spec's Consent resource shows it. */
export interface ConsentRow {
  app_user_id: string;
  status: ConsentStatus;
  source: ConsentSource;
  ref: string | null;
  opted_in_at: DbTimestamp;
  opted_out_at: DbTimestamp | null;
  updated_at: DbTimestamp;
}

/** A row of userStatement. */
export interface UserRow extends ConsentRow {
  last_user_message_at: DbTimestamp | null;
}

/** One indexed query: the user's consent joined with their reply window (none for another app's user). */
export function userStatement(appId: string, appUserId: string): Statement {
  return {
    sql: `select c.app_user_id, c.status, c.source, c.ref, c.opted_in_at, c.opted_out_at, c.updated_at, w.last_user_message_at
       from consent.consents c left join consent.reply_windows w on w.app_id = c.app_id and w.app_user_id = c.app_user_id
       where c.app_id = ? and c.app_user_id = ?`,
    params: [appId, appUserId],
  };
}

/** A row of listConsentsStatement: a consent version and the snapshot it was read at. */
export interface ConsentVersionRow extends ConsentRow {
  at: string;
}

/**
 * A page of the app's consents as of a snapshot (the cursor's, or the app's change sequence now),
 * newest change first, optionally of one status, after the cursor's row; one more than `limit` to
 * tell whether another page follows.
 */
export function listConsentsStatement(appId: string, status: ConsentStatus | null, cursor: ConsentCursor | null, limit: number): Statement {
  const params: unknown[] = [];
  // The snapshot: the app's change sequence when the listing started (or the cursor's).
  const snapshot = cursor ? '?::bigint' : `coalesce((select seq from consent.consent_list_seq where app_id = ?), 0)`;
  params.push(cursor ? cursor.snapshot : appId);
  let where = `v.app_id = ? and v.seq <= s.at and (v.valid_to_seq is null or v.valid_to_seq > s.at)`;
  params.push(appId);
  if (status) {
    where += ` and v.status = ?`;
    params.push(status);
  }
  if (cursor) {
    // `updated_at <= ?` on its own is what the index can start from: without it the scan walked every
    // row before the cursor, so each page cost as much as all the pages before it.
    where += ` and v.updated_at <= ? and (v.updated_at < ? or v.app_user_id > ?)`;
    params.push(cursor.updatedAt, cursor.updatedAt, cursor.appUserId);
  }
  params.push(limit + 1);
  return {
    sql: `with s as (select ${snapshot} as at)
       select v.app_user_id, v.status, v.source, v.ref, v.opted_in_at, v.opted_out_at, v.updated_at, s.at
       from consent.consent_versions v, s where ${where}
       order by v.updated_at desc, v.app_user_id asc limit ?`,
    params,
  };
}

/** `?, ?, …`, one mark per id. */
const marksFor = (ids: string[]) => ids.map(() => '?').join(', ');

/** A row of refusalStatement. */
export interface RefusalRow {
  code: ErrorCode;
  message: string;
  details: ErrorDetail[] | null;
}

/** The refusal of any of these user-action events (at most one row). */
export function refusalStatement(eventIds: string[]): Statement {
  return { sql: `select code, message, details from consent.refused_user_actions where event_id in (${marksFor(eventIds)}) limit 1`, params: eventIds };
}

/** A row of causedEventsStatement. */
export interface CausedEventRow {
  event_id: string;
  type: string;
}

/** The consent events these events caused, in the order they were stored. */
export function causedEventsStatement(eventIds: string[]): Statement {
  return { sql: `select event_id, type from consent.events where metadata->>'causationId' in (${marksFor(eventIds)}) order by position`, params: eventIds };
}

/** The user's consent with the app (none if the user never had one). */
export function consentStatement(appId: string, appUserId: string): Statement {
  return {
    sql: `select app_user_id, status, source, ref, opted_in_at, opted_out_at, updated_at from consent.consents where app_id = ? and app_user_id = ?`,
    params: [appId, appUserId],
  };
}
