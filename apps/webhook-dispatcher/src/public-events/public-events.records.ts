import { derivedId, ID_PREFIX } from '#platform/contracts';
import { jsonTexts, type Statement } from '#platform/postgres';
import { DELIVERIES_CHANNEL, type PublicEventRecord } from '../deliveries/delivery.records';
import { LISTEN_CHANNEL } from '../listen/listen-session.records';

/** A public event decided by the public-events consumer: the event kept, and who gets it. */
export interface DecidedPublicEvent extends PublicEventRecord {
  /** Enabled endpoints of the app subscribed to the type: one original delivery each. */
  endpointIds: string[];
  /** Live listen sessions of the app that want the type: one listen record each. */
  listenSessionIds: string[];
  /** The trace the deliveries' attempts continue (null: each attempt starts one). */
  traceparent: string | null;
}

/**
 * The apps' enabled endpoints (for the public-events consumer's read). The ids go as a jsonb array
 * under a limit of their count, so Postgres settles on a generic plan: as `= any(text[])` the
 * custom plan always looked cheaper and every slice was planned afresh.
 */
export function enabledEndpointsStatement(appIds: string[]): Statement {
  return {
    sql: `select app_id, endpoint_id, events from webhook_dispatcher.endpoints where app_id in ${jsonTexts(appIds.length)} and state = 'enabled' order by endpoint_id`,
    params: [JSON.stringify(appIds)],
  };
}

/**
 * A slice's public events, their deliveries and listen records in one statement, the public event
 * first: its insert (`on conflict (event_id) do nothing`) returns only the events new to the table,
 * and only those get deliveries and listen records. The `evt_` id is derived from the domain event,
 * so any copy of an event already kept (a redrive, a duplicate message, a replay, two replicas
 * during a rebalance) creates nothing: the table is the consumer's inbox (ADR 0226). The workers and
 * listen readers are woken at commit, once per channel and payload.
 */
export function publicEventsSliceStatement(events: DecidedPublicEvent[]): Statement {
  const kept = events.map((e) => ({
    event_id: e.eventId,
    app_id: e.appId,
    type: e.type,
    payload: e.payload,
    requires_media: `{${e.requiresMedia.join(',')}}`,
    source_event_id: e.sourceEventId,
    created_at: e.now,
  }));
  const deliveries = events.flatMap((e) =>
    e.endpointIds.map((endpointId) => ({
      // Original deliveries' ids are derived from (event, endpoint), as createDeliveries does.
      delivery_id: derivedId(ID_PREFIX.webhookDelivery, e.now.getTime(), `${e.eventId}:${endpointId}`),
      app_id: e.appId,
      endpoint_id: endpointId,
      event_id: e.eventId,
      event_type: e.type,
      created_at: e.now,
      traceparent: e.traceparent,
    })),
  );
  const listened = events.flatMap((e) => e.listenSessionIds.map((sessionId) => ({ session_id: sessionId, event_id: e.eventId, created_at: e.now })));
  return {
    sql: `with kept as (
            insert into webhook_dispatcher.public_events (event_id, app_id, type, payload, requires_media, source_event_id, created_at)
            select e.event_id, e.app_id, e.type, e.payload, e.requires_media::text[], e.source_event_id, e.created_at
            from jsonb_to_recordset(?::jsonb) as e(event_id text, app_id text, type text, payload text, requires_media text, source_event_id text, created_at timestamptz)
            on conflict (event_id) do nothing returning event_id),
          delivered as (
            insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at, traceparent)
            select d.delivery_id, d.app_id, d.endpoint_id, d.event_id, d.event_type, 'pending', 0, d.created_at, d.created_at, d.traceparent
            from jsonb_to_recordset(?::jsonb) as d(delivery_id text, app_id text, endpoint_id text, event_id text, event_type text, created_at timestamptz, traceparent text)
            join kept using (event_id)
            on conflict do nothing returning delivery_id),
          listened as (
            insert into webhook_dispatcher.listen_events (session_id, event_id, created_at)
            select l.session_id, l.event_id, l.created_at
            from jsonb_to_recordset(?::jsonb) as l(session_id text, event_id text, created_at timestamptz)
            join kept using (event_id)
            on conflict do nothing returning session_id)
          select pg_notify(?, '') from (select 1 from delivered limit 1) as woken
          union all select pg_notify(?, session_id) from (select distinct session_id from listened) as woken`,
    params: [JSON.stringify(kept), JSON.stringify(deliveries), JSON.stringify(listened), DELIVERIES_CHANNEL, LISTEN_CHANNEL],
  };
}
