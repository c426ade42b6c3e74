import type { AppEventType, PublicEventType, WebhookEndpointState } from '#platform/contracts';
import { pgTextArray } from '#platform/event-store';
import type { Statement } from '#platform/postgres';
import { isoTime, type DbTimestamp } from '#platform/service-kit';
import { DELIVERIES_CHANNEL } from '../deliveries/delivery.records';
import type { RecoveredDelivery, RecoveryState } from './recovery.state';

/** The statements of RecoveriesHandler (ADR 0224): the facts a recovery is decided on, and what it writes. */

/** A recovery still creating that has not moved for this long (real time) lost its creator: it no longer counts as in progress. */
export const CREATOR_GONE_SECONDS = 60;

/** A row of endpointStatement. */
export interface RecoveryEndpointRow {
  state: WebhookEndpointState;
  events: PublicEventType[];
}

/**
 * The app's endpoint, locked to the commit: `for update` when a recovery starts (recoveries of one
 * endpoint start one after another), `for share` while one creates deliveries (it is not disabled
 * or deleted meanwhile).
 */
export function endpointStatement(appId: string, endpointId: string, lock: 'update' | 'share'): Statement {
  return { sql: `select state, events from webhook_dispatcher.endpoints where endpoint_id = ? and app_id = ? for ${lock}`, params: [endpointId, appId] };
}

/** A row of latestRecoveryStatement. */
export interface RecoveryRow {
  recovery_id: string;
  endpoint_id: string;
  since: DbTimestamp;
  until: DbTimestamp;
  event_types: AppEventType[];
  recovered: number;
  finished_at: DbTimestamp | null;
  creator_gone: boolean;
  deliveries_pending: boolean;
}

/** The endpoint's latest recovery, locked, with whether its creator is gone and whether a delivery it made is pending. */
export function latestRecoveryStatement(endpointId: string): Statement {
  return {
    sql: `select r.recovery_id, r.endpoint_id, r.since, r.until, r.event_types, r.recovered, r.finished_at,
                 r.finished_at is null and r.progressed_at < clock_timestamp() - interval '${CREATOR_GONE_SECONDS} seconds' as creator_gone,
                 exists (select 1 from webhook_dispatcher.deliveries d where d.recovery_id = r.recovery_id and d.status = 'pending') as deliveries_pending
          from webhook_dispatcher.endpoint_recoveries r where r.endpoint_id = ? for update of r`,
    params: [endpointId],
  };
}

/** A recovery row as the recovery decider's state. */
export function recoveryState(row: RecoveryRow | undefined): RecoveryState {
  if (!row) return { status: 'none' };
  const recovery = {
    recoveryId: row.recovery_id,
    endpointId: row.endpoint_id,
    since: isoTime(row.since),
    until: isoTime(row.until),
    eventTypes: row.event_types,
  };
  return { status: row.finished_at === null ? 'creating' : 'finished', recovery, recovered: row.recovered };
}

/** RecoveryStarted: the endpoint's latest recovery is this one (the previous row is replaced). */
export function startRecoveryStatement(args: {
  appId: string;
  recoveryId: string;
  endpointId: string;
  since: string;
  until: string;
  eventTypes: AppEventType[];
  startedAt: string;
}): Statement {
  return {
    sql: `insert into webhook_dispatcher.endpoint_recoveries
            (endpoint_id, recovery_id, app_id, since, until, event_types, recovered, started_at, progressed_at, finished_at)
          values (?, ?, ?, ?, ?, ?::text[], 0, ?, clock_timestamp(), null)
          on conflict (endpoint_id) do update set recovery_id = excluded.recovery_id, app_id = excluded.app_id, since = excluded.since,
            until = excluded.until, event_types = excluded.event_types, recovered = 0, started_at = excluded.started_at,
            progressed_at = excluded.progressed_at, finished_at = null`,
    params: [args.endpointId, args.recoveryId, args.appId, args.since, args.until, pgTextArray(args.eventTypes), args.startedAt],
  };
}

/** A row of candidatesStatement. */
export interface CandidateRow {
  event_id: string;
  type: PublicEventType;
  delivered: boolean;
  pending: boolean;
  last_delivery_id: string | null;
}

/**
 * The next `limit` kept events of the app of one type with ids in [from, until) after `after`, in id
 * order (a range of public_events_by_app_type), each with what the endpoint had of it.
 */
export function candidatesStatement(args: {
  appId: string;
  endpointId: string;
  type: AppEventType;
  from: string;
  after: string;
  until: string;
  limit: number;
}): Statement {
  return {
    sql: `select e.event_id, e.type, coalesce(f.delivered, false) as delivered, coalesce(f.pending, false) as pending, f.last_delivery_id
          from webhook_dispatcher.public_events e
          cross join lateral (
            select bool_or(d.status = 'delivered') as delivered, bool_or(d.status = 'pending') as pending, max(d.delivery_id) as last_delivery_id
            from webhook_dispatcher.deliveries d where d.event_id = e.event_id and d.endpoint_id = ?) f
          where e.app_id = ? and e.type = ? and e.event_id >= ? and e.event_id > ? and e.event_id < ? and e.payload is not null
          order by e.event_id limit ?`,
    params: [args.endpointId, args.appId, args.type, args.from, args.after, args.until, args.limit],
  };
}

/**
 * RecoveryDeliveriesCreated: the deliveries, due at once in the endpoint's lane like any other, and
 * the workers woken at commit. One that has a delivery to follow is a replay of it; one without
 * takes the original's place, so an original the fan-out adds meanwhile is no second delivery.
 */
export function recoveredDeliveriesStatement(args: {
  appId: string;
  endpointId: string;
  recoveryId: string;
  deliveries: RecoveredDelivery[];
  now: Date;
  traceparent: string | null;
}): Statement {
  const column = (pick: (d: RecoveredDelivery) => string) => pgTextArray(args.deliveries.map(pick));
  return {
    sql: `with inserted as (
            insert into webhook_dispatcher.deliveries
              (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at, replay_of, traceparent, recovery_id)
            select r.delivery_id, ?, ?, r.event_id, r.event_type, 'pending', 0, ?, ?, nullif(r.replay_of, ''), ?, ?
            from unnest(?::text[], ?::text[], ?::text[], ?::text[]) as r(delivery_id, event_id, event_type, replay_of)
            on conflict do nothing returning delivery_id)
          select delivery_id, pg_notify(?, '') from inserted`,
    params: [
      args.appId,
      args.endpointId,
      args.now,
      args.now,
      args.traceparent,
      args.recoveryId,
      column((d) => d.deliveryId),
      column((d) => d.eventId),
      column((d) => d.eventType),
      column((d) => d.replayOf ?? ''),
      DELIVERIES_CHANNEL,
    ],
  };
}

/** The recovery moved on: its count so far, and that its creator is alive (real time). */
export function recoveryProgressStatement(endpointId: string, recoveryId: string, recovered: number): Statement {
  return {
    sql: `update webhook_dispatcher.endpoint_recoveries set recovered = ?, progressed_at = clock_timestamp() where endpoint_id = ? and recovery_id = ?`,
    params: [recovered, endpointId, recoveryId],
  };
}

/** RecoveryFinished. */
export function finishRecoveryStatement(endpointId: string, recoveryId: string, recovered: number, at: string): Statement {
  return {
    sql: `update webhook_dispatcher.endpoint_recoveries set recovered = ?, finished_at = ?, progressed_at = clock_timestamp() where endpoint_id = ? and recovery_id = ?`,
    params: [recovered, at, endpointId, recoveryId],
  };
}
