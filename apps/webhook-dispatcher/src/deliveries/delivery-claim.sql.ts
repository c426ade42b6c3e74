import type { PublicEventType } from '#platform/contracts';

/** A claimed delivery is another worker's to retry once its lease (real time) runs out: answer limit, DNS and margin. */
const LEASE_SECONDS = 20;
/** A message.received waits this long at most for media to register its files. */
const MEDIA_WAIT_SECONDS = 60;

/**
 * Whether the public event `alias` may be shown to the app yet (a delivery, a listen session, the
 * events API): a message.received once media registered its files, so that the receiver's GET
 * /media/{id} finds them, or MEDIA_WAIT_SECONDS after it was recorded. `now` is the SQL of the
 * platform time (a placeholder).
 */
export function mediaReadyCondition(alias: string, now: string): string {
  return `(cardinality(${alias}.requires_media) = 0
           or ${alias}.created_at < ${now}::timestamptz - interval '${MEDIA_WAIT_SECONDS} seconds'
           or not exists (select 1 from unnest(${alias}.requires_media) as m(id)
                          where not exists (select 1 from webhook_dispatcher.known_media k where k.media_id = m.id)))`;
}

/**
 * Due deliveries, claimed fairly across endpoints with a lease (ADR 0204), with all an attempt
 * needs: the event's payload, the endpoint and its sealed signing secrets.
 *
 * - Lanes: the endpoints with pending deliveries, found by skipping through `deliveries_due_idx`
 *   (endpoint, due time) one endpoint at a time, starting after `$3` (the cursor: where the last
 *   full claim stopped) and wrapping around, at most `$4` of them. The cost is one index descent per
 *   endpoint, whatever one endpoint's backlog.
 * - Each lane offers its earliest due deliveries, as many as its plan allows: `attempts` to send
 *   and `holds` to hold (`$6..$8` per endpoint, `$5` attempts for endpoints not listed).
 * - Picked round robin: every lane's first delivery before any lane's second, up to `$2` to send
 *   and `$9` to hold. So a first attempt never waits behind another endpoint's retries, and a
 *   backlog waits in its own lane.
 * - Locked with `SKIP LOCKED` (replicas share the work) and leased. `held` marks the deliveries the
 *   worker records at once without sending; `due_at` is when each was due.
 * A last row with no delivery carries the cursor for the next claim.
 */
export const CLAIM_SQL = `
with recursive after_cursor(endpoint_id, n) as (
  (select d.endpoint_id, 1 from webhook_dispatcher.deliveries d
    where d.status = 'pending' and d.endpoint_id > $3 order by d.endpoint_id limit 1)
  union all
  select (select d.endpoint_id from webhook_dispatcher.deliveries d
           where d.status = 'pending' and d.endpoint_id > a.endpoint_id order by d.endpoint_id limit 1), a.n + 1
  from after_cursor a where a.endpoint_id is not null and a.n < $4
), from_start(endpoint_id, n) as (
  (select d.endpoint_id, 1 from webhook_dispatcher.deliveries d
    where d.status = 'pending' and d.endpoint_id <= $3 order by d.endpoint_id limit 1)
  union all
  select (select d.endpoint_id from webhook_dispatcher.deliveries d
           where d.status = 'pending' and d.endpoint_id > s.endpoint_id and d.endpoint_id <= $3 order by d.endpoint_id limit 1), s.n + 1
  from from_start s where s.endpoint_id is not null and s.n < $4
), lanes as (
  select v.endpoint_id, row_number() over (order by v.part, v.n) as lane_order
  from (select endpoint_id, 0 as part, n from after_cursor where endpoint_id is not null
        union all
        select endpoint_id, 1 as part, n from from_start where endpoint_id is not null) v
  order by v.part, v.n
  limit $4
), plans as (
  select l.endpoint_id, l.lane_order, coalesce(p.attempts, $5) as attempts, coalesce(p.holds, 0) as holds
  from lanes l
  left join unnest($6::text[], $7::int[], $8::int[]) as p(endpoint_id, attempts, holds) on p.endpoint_id = l.endpoint_id
), offered as (
  select p.lane_order, p.attempts, o.delivery_id, o.next_attempt_at,
         row_number() over (partition by p.lane_order order by o.next_attempt_at, o.delivery_id) as rank
  from plans p
  cross join lateral (
    select d.delivery_id, d.next_attempt_at
    from webhook_dispatcher.deliveries d
    join webhook_dispatcher.public_events e on e.event_id = d.event_id
    where d.endpoint_id = p.endpoint_id and d.status = 'pending' and d.next_attempt_at <= $1
      and (d.lease_until is null or d.lease_until < clock_timestamp())
      and ${mediaReadyCondition('e', '$1')}
    order by d.next_attempt_at
    limit p.attempts + p.holds
  ) o
  where p.attempts + p.holds > 0
), picked as (
  (select delivery_id, next_attempt_at as due_at, false as held, lane_order
   from offered where rank <= attempts order by rank, lane_order limit $2)
  union all
  (select delivery_id, next_attempt_at as due_at, true as held, lane_order
   from offered where rank > attempts order by rank, lane_order limit $9)
), locked as (
  -- Each picked delivery by its key (a join could be planned as a walk of every pending delivery).
  select l.delivery_id
  from picked p
  cross join lateral (
    select d.delivery_id from webhook_dispatcher.deliveries d
    where d.delivery_id = p.delivery_id and d.status = 'pending' and (d.lease_until is null or d.lease_until < clock_timestamp())
    for update of d skip locked
  ) l
), claimed as (
  update webhook_dispatcher.deliveries d
  set attempts = d.attempts + 1, lease_until = clock_timestamp() + interval '${LEASE_SECONDS} seconds', last_attempt_at = $1
  from locked where d.delivery_id = locked.delivery_id
  returning d.delivery_id, d.app_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.created_at, d.traceparent
)
select c.delivery_id, c.app_id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.created_at, c.traceparent,
       p.held, p.due_at, e.payload, ep.state as endpoint_state, ep.url, cr.secret, cr.previous_secret, cr.previous_secret_expires_at,
       null as next_cursor
from claimed c
join picked p on p.delivery_id = c.delivery_id
join webhook_dispatcher.public_events e on e.event_id = c.event_id
left join webhook_dispatcher.endpoints ep on ep.endpoint_id = c.endpoint_id
left join webhook_dispatcher.endpoint_credentials cr on cr.endpoint_id = c.endpoint_id
union all
select null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
       case when $2 > 0 and (select count(*) from picked where not held) >= $2
              then (select l.endpoint_id from lanes l where l.lane_order = (select max(lane_order) from picked where not held))
            when (select count(*) from lanes) >= $4
              then (select l.endpoint_id from lanes l order by l.lane_order desc limit 1)
            else '' end`;

/**
 * The worker's sessions plan without bitmap scans, so the claim walks `deliveries_due_idx` as index
 * scans. Every delivery that leaves `pending` leaves a dead entry in that partial index until a
 * vacuum. An index scan marks the dead entries it meets as dead in the index (Postgres'
 * kill_prior_tuple), and every later scan, bitmap scans too, skips them; a bitmap scan never marks
 * them, so a claim planned as one would visit every delivery finished since the last vacuum, on
 * every claim (docs/adr/0204-webhook-deliveries-scheduled-per-endpoint-lane.md; measured in
 * docs/performance-history.md, "Webhook delivery").
 */
export const CLAIM_SESSION_OPTIONS = '-c enable_bitmapscan=off';

/** A row of CLAIM_SQL: a claimed delivery, or (the last row) only the cursor. */
export interface ClaimRow {
  delivery_id: string | null;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: PublicEventType;
  attempts: number;
  created_at: Date;
  traceparent: string | null;
  /** Recorded at once as not sent: the endpoint's lane is open. */
  held: boolean;
  due_at: Date;
  payload: string | null;
  endpoint_state: string | null;
  url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  /** On the last row only: where the next claim starts. */
  next_cursor: string | null;
}
