/** A claimed delivery is another worker's to retry once its lease (real time) runs out: answer limit, DNS and margin. */
const LEASE_SECONDS = 20;
/** A message.received waits this long at most for media to register its files. */
const MEDIA_WAIT_SECONDS = 60;

/**
 * Due deliveries, claimed with a lease (`FOR UPDATE SKIP LOCKED`, so replicas share the work), with
 * all an attempt needs: the event's payload, the endpoint and its sealed signing secrets.
 */
export const CLAIM_SQL = `
with due as (
  select d.delivery_id
  from webhook_dispatcher.deliveries d
  join webhook_dispatcher.public_events e on e.event_id = d.event_id
  where d.status = 'pending' and d.next_attempt_at <= $1
    and (d.lease_until is null or d.lease_until < clock_timestamp())
    and (cardinality(e.requires_media) = 0
         or e.created_at < $1::timestamptz - interval '${MEDIA_WAIT_SECONDS} seconds'
         or not exists (select 1 from unnest(e.requires_media) as m(id)
                        where not exists (select 1 from webhook_dispatcher.known_media k where k.media_id = m.id)))
  order by d.next_attempt_at
  limit $2
  for update of d skip locked
), claimed as (
  update webhook_dispatcher.deliveries d
  set attempts = d.attempts + 1, lease_until = clock_timestamp() + interval '${LEASE_SECONDS} seconds', last_attempt_at = $1
  from due where d.delivery_id = due.delivery_id
  returning d.delivery_id, d.app_id, d.endpoint_id, d.event_id, d.event_type, d.attempts, d.created_at, d.traceparent
)
select c.delivery_id, c.app_id, c.endpoint_id, c.event_id, c.event_type, c.attempts, c.created_at, c.traceparent,
       e.payload, ep.state as endpoint_state, ep.url, cr.secret, cr.previous_secret, cr.previous_secret_expires_at
from claimed c
join webhook_dispatcher.public_events e on e.event_id = c.event_id
left join webhook_dispatcher.endpoints ep on ep.endpoint_id = c.endpoint_id
left join webhook_dispatcher.endpoint_credentials cr on cr.endpoint_id = c.endpoint_id`;

/**
 * The worker's sessions plan without bitmap scans, so the claim walks `deliveries_due_idx` (pending
 * deliveries by due time) as an index scan. Every delivery that leaves `pending` leaves a dead entry
 * in that partial index until a vacuum. An index scan marks the dead entries it meets as dead in the
 * index (Postgres' kill_prior_tuple), and every later scan, bitmap scans too, skips them; a bitmap
 * scan never marks them, so a claim planned as one visits every delivery finished since the last
 * vacuum, on every claim. Recording outcomes reads the same index (the pending deliveries among
 * those it updates) and gains the same way. Measured: docs/adr/0093-delivery-claim-as-index-scan.md.
 */
export const CLAIM_SESSION_OPTIONS = '-c enable_bitmapscan=off';

/** A row of CLAIM_SQL. */
export interface ClaimRow {
  delivery_id: string;
  app_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  created_at: Date;
  traceparent: string | null;
  payload: string | null;
  endpoint_state: string | null;
  url: string | null;
  secret: string | null;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}
