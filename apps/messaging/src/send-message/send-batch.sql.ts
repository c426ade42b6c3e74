import { jsonRows, jsonTexts, type Statement } from '#platform/postgres';
import { utcDay } from '../messages/send-rules';
import { compare, rowKey } from './send-keys';
import type { Addressed, PendingSend } from './send-message.types';

/** The statements of a send batch (the key locks, the held keys, the facts, the D7 and D8 counts), as the batch sends them, and of the held-key lookup. */

/** The users with these email addresses (lowercase), for sends addressed by email. */
export function recipientsByEmailStatement(emails: string[]): Statement {
  return { sql: `select user_id, email from messaging.recipients where email in ${jsonTexts(emails.length)}`, params: [JSON.stringify(emails)] };
}

/**
 * Transaction-scoped locks on these names, taken one by one in the names' order, so that two
 * batches taking some of the same ones never wait on each other in a circle.
 */
function locksInOrder(names: string[]): Statement {
  return {
    sql: `select pg_advisory_xact_lock(hashtextextended(k, 0)) from jsonb_array_elements_text(?::jsonb) with ordinality as l(k, n) order by n`,
    params: [JSON.stringify([...new Set(names)].sort(compare))],
  };
}

/**
 * Takes each send's Idempotency-Key, a lock per (app, key): a twin in another process waits here
 * for the first to commit, and its heldStatement (a later statement, so a later snapshot) then sees
 * the first's message. The keys live on the message rows (ADR 0227); a refused send writes none.
 */
export function keyLocksStatement(sends: PendingSend[]): Statement {
  return locksInOrder(sends.map(({ request }) => `idem:${request.appId}:${request.idempotencyKey}`));
}

/** A HeldRow's columns, from a message `m` that holds a key. */
const HELD_COLUMNS = 'm.app_id, m.idempotency_key, m.body_hash, m.message_id, m.app_user_id, m.type, m.created_at, m.client_reference';

/** The newest message of an app holding a key recorded since `since` (architecture section 3: 24 hours). */
const HOLDER = (appId: string, key: string, since: string) => `(select ${HELD_COLUMNS} from messaging.messages m
    where m.app_id = ${appId} and m.idempotency_key = ${key} and m.created_at >= ${since}
    order by m.created_at desc limit 1)`;

/** After the locks: the keys a send accepted within their 24 hours holds, with its body hash and message (for the replay or the 422). */
export function heldStatement(sends: PendingSend[], since: Date): Statement {
  return {
    sql: `select h.* from ${jsonRows('c', 'app_id text, idempotency_key text', sends.length)}
       cross join lateral ${HOLDER('c.app_id', 'c.idempotency_key', '?')} h`,
    params: [JSON.stringify(sends.map((send) => ({ app_id: send.request.appId, idempotency_key: send.request.idempotencyKey }))), since],
  };
}

/** Who holds a key recorded since `since` (at most one row), for a request refused before it reaches a batch. */
export function heldKeyStatement(request: { appId: string; idempotencyKey: string }, since: Date): Statement {
  return { sql: `select * from ${HOLDER('?', '?', '?')} h`, params: [request.appId, request.idempotencyKey, since] };
}

/**
 * Everything D9 looks at, for every send, in one query over messaging's projections; a template
 * send's template (by app, name and language) comes in the same row (architecture section 13), and
 * only a template send looks for one.
 */
export function factsStatement(addressed: Addressed[]): Statement {
  return {
    sql: `select q.i, a.org_id as app_org_id, a.status as app_status, a.daily_quota,
              r.user_id, r.org_id as user_org_id, r.status as user_status, o.allows_external_businesses as org_allows,
              exists (select 1 from messaging.testers t where t.app_id = a.app_id and t.user_id = r.user_id) as tester,
              (select c.status from messaging.consents c where c.app_id = a.app_id and c.app_user_id = q.app_user_id) as consent,
              (select w.last_user_message_at from messaging.windows w where w.app_id = a.app_id and w.app_user_id = q.app_user_id) as last_user_message_at,
              case when q.template_name is not null then
                (select to_jsonb(tp) from (select template_id, app_id, name, language, category, components, variables, examples, status, rejected_reason, version
                    from messaging.templates tpl where tpl.app_id = a.app_id and tpl.name = q.template_name and tpl.language = q.template_language) tp)
              end as template
       from ${jsonRows('q', 'i int, app_id text, app_user_id text, user_id text, template_name text, template_language text', addressed.length)}
       join messaging.apps a on a.app_id = q.app_id
       left join messaging.recipients r on r.user_id = coalesce(q.user_id, (select u.user_id from messaging.app_users u where u.app_id = a.app_id and u.app_user_id = q.app_user_id))
       left join messaging.orgs o on o.org_id = r.org_id`,
    params: [
      JSON.stringify(
        addressed.map(({ send, userId, appUserId }) => ({
          i: send.at,
          app_id: send.request.appId,
          app_user_id: appUserId,
          user_id: userId,
          template_name: send.request.body.template?.name ?? null,
          template_language: send.request.body.template?.language ?? null,
        })),
      ),
    ],
  };
}

export function mediaWanted(sends: (PendingSend & { at: number })[]): { at: number; media_id: string; app_id: string }[] {
  return sends
    .filter((send) => send.request.body.type !== 'text' && send.request.body.type !== 'template')
    .map((send) => ({ at: send.at, media_id: String(send.request.body.mediaId), app_id: send.request.appId }));
}

/** The media of the media messages, from messaging's projection of media.events (D9 media checks, D11). */
export function mediaStatement(wanted: { at: number; media_id: string; app_id: string }[]): Statement {
  return {
    sql: `select q.at, m.media_id, m.kind, m.status, m.mime_type, m.file_name, m.size, m.object_key
           from ${jsonRows('q', 'at int, media_id text, app_id text', wanted.length)} join messaging.media m using (media_id, app_id)`,
    params: [JSON.stringify(wanted)],
  };
}

/** The (app, day) counters the sends count against (D8), in key order. */
export function dayCounters(sends: PendingSend[]): { app_id: string; day: string }[] {
  return [...new Map(sends.map((send) => [rowKey(send.request.appId, utcDay(send.now)), { app_id: send.request.appId, day: utcDay(send.now) }])).values()].sort(
    (a, b) => compare(a.app_id, b.app_id) || compare(a.day, b.day),
  );
}

/**
 * D7 under a per-(app, user) lock, taken in key order, so concurrent business-initiated sends
 * cannot pass the cap together: the locks, then when the app sent business-initiated messages to
 * each user since `since`.
 */
export function businessInitiatedStatements(users: { appId: string; appUserId: string; since: Date }[]): Statement[] {
  return [
    locksInOrder(users.map((user) => `bi:${user.appId}:${user.appUserId}`)),
    {
      sql: `select q.app_id, q.app_user_id, (select coalesce(jsonb_agg((extract(epoch from m.created_at) * 1000)::bigint), '[]'::jsonb) from messaging.messages m
                      where m.app_id = q.app_id and m.app_user_id = q.app_user_id and m.business_initiated and m.created_at > q.since) as sent_at
         from ${jsonRows('q', 'app_id text, app_user_id text, since timestamptz', users.length)}`,
      params: [JSON.stringify(users.map((user) => ({ app_id: user.appId, app_user_id: user.appUserId, since: user.since })))],
    },
  ];
}

/** The CHECK that keeps a day's accepted sends within the quota they were decided under (ADR 0199). */
export const QUOTA_GUARD = 'daily_counts_within_quota';

/**
 * D8: reads each counter. Locked (`lock`), each is locked in key order and held to commit, so
 * concurrent batches of one app decide one after the other; a counter row made here for a day with
 * no accepted send is removed again at the end (settleStatements). Unlocked, batches decide side by
 * side and the settling increment is guarded by QUOTA_GUARD: a batch that decided on a count another
 * batch has since raised past the quota fails there and is decided again, locked.
 */
export function countersStatement(counters: { app_id: string; day: string }[], lock: boolean): Statement {
  if (!lock)
    return {
      sql: `select d.app_id, to_char(d.day, 'YYYY-MM-DD') as day, d.accepted
         from jsonb_to_recordset(?::jsonb) as c(app_id text, day date) join messaging.daily_counts d on d.app_id = c.app_id and d.day = c.day`,
      params: [JSON.stringify(counters)],
    };
  return {
    sql: `insert into messaging.daily_counts (app_id, day, accepted)
       select app_id, day, 0 from jsonb_to_recordset(?::jsonb) as c(app_id text, day date)
       on conflict (app_id, day) do update set accepted = messaging.daily_counts.accepted
       returning app_id, to_char(day, 'YYYY-MM-DD') as day, accepted`,
    params: [JSON.stringify(counters)],
  };
}

/**
 * Adds what the accepted sends consumed to their counters, each with the quota they were decided
 * under (the increment fails QUOTA_GUARD if it would pass it), and removes counter rows this batch made for nothing.
 */
export function settleStatements(
  counters: { app_id: string; day: string }[],
  consumed: { appId: string; day: string; accepted: number; dailyQuota: number }[],
  locked: boolean,
): Statement[] {
  const added = new Map(consumed.map((count) => [rowKey(count.appId, count.day), count]));
  const counts = counters
    .map(({ app_id, day }) => {
      const count = added.get(rowKey(app_id, day));
      return { app_id, day, n: count?.accepted ?? 0, quota: count?.dailyQuota ?? null };
    })
    // Unlocked, the batch made no row, and leaves alone the ones it did not add to.
    .filter(({ n }) => locked || n > 0);
  if (counts.length === 0) return [];
  return [
    {
      sql: `with counts as (select * from ${jsonRows('c', 'app_id text, day date, n int, quota int', counts.length)}),
            added as (insert into messaging.daily_counts as d (app_id, day, accepted, quota) select app_id, day, n, quota from counts where n > 0
                      on conflict (app_id, day) do update set accepted = d.accepted + excluded.accepted, quota = excluded.quota returning 1)
       delete from messaging.daily_counts d using counts c where c.n = 0 and d.accepted = 0 and d.app_id = c.app_id and d.day = c.day`,
      params: [JSON.stringify(counts)],
    },
  ];
}
