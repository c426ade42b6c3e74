import { DOMAIN_TOPIC_PARTITIONS, TOPICS, type DomainEvent } from '#platform/contracts';
import { type Statement } from '#platform/postgres';
import { currentTraceparent, type ConsumerSpec, type PipelinedConsumerSpec, type ServiceRuntime } from '#platform/service-kit';
import { DELIVERIES_CHANNEL } from '../deliveries/delivery.records';
import { liveSessionsStatement } from '../listen/listen-session.records';
import { keptForEventsApi, PUBLIC_SOURCE_TYPES, toPublicEvent } from './public-event.mapper';
import { enabledEndpointsStatement, publicEventsSliceStatement, type DecidedPublicEvent } from './public-events.records';

export const PUBLIC_EVENTS_CONSUMER = 'public-events';
export const MEDIA_REGISTRY_CONSUMER = 'media-registry';

/**
 * Turns domain events into public events, kept 30 days for GET /events whoever subscribed (ADR 0223),
 * one delivery per enabled endpoint of the app that subscribed to the type, and a record for each
 * live listen session (`platformctl listen`) of the app that wants the type. The `evt_` id is
 * derived from the domain event, and the public event's row gates the rest: a copy of an event
 * whose row exists creates nothing, so the row is this consumer's inbox record and the consumer
 * writes none to the inbox (ADR 0226; rows are kept 30 days, past the 7 days after which redriven
 * copies are passed over). A slice of events takes two round trips: the apps' enabled endpoints and
 * live listen sessions are read with `begin` and the applied offsets, and the slice's public events,
 * deliveries and listen records are written with the commit, in one statement.
 */
export function publicEventsConsumer(runtime: ServiceRuntime): PipelinedConsumerSpec {
  return {
    name: PUBLIC_EVENTS_CONSUMER,
    topics: [TOPICS.messagingEvents, TOPICS.consentEvents, TOPICS.profileEvents],
    pipelined: {
      types: PUBLIC_SOURCE_TYPES,
      dedupedByEffect: true,
      read: (events) => {
        const appIds = [...new Set(events.flatMap((event) => (event.appId ? [event.appId] : [])))];
        return [enabledEndpointsStatement(appIds), liveSessionsStatement(appIds, runtime.clock.now())];
      },
      decide: ([endpoints, sessions]) => {
        const decided = new Map<string, DecidedPublicEvent>();
        const decideOne = (event: DomainEvent): Statement[] => {
          const publicEvent = toPublicEvent(event);
          // A second copy within the slice is already decided (the table would pass it over anyway).
          if (!publicEvent || !event.appId || decided.has(publicEvent.envelope.id)) return [];
          const { envelope } = publicEvent;
          const endpointIds = endpoints
            .filter((row) => row.app_id === event.appId && (row.events as string[]).includes(envelope.type))
            .map((row) => row.endpoint_id as string);
          const listenSessionIds = sessions
            .filter((row) => row.app_id === event.appId && (row.events as string[]).includes(envelope.type))
            .map((row) => row.session_id as string);
          const now = runtime.clock.now();
          // An event older than the events API keeps them (a topic read again from far back) is kept
          // only while something is to deliver it.
          if (endpointIds.length === 0 && listenSessionIds.length === 0 && !keptForEventsApi(event.occurredAt, now)) return [];
          decided.set(envelope.id, {
            eventId: envelope.id,
            appId: event.appId,
            type: envelope.type,
            payload: publicEvent.payload,
            requiresMedia: publicEvent.requiresMedia,
            sourceEventId: event.eventId,
            now,
            endpointIds,
            listenSessionIds,
            // Decided in the event's span (continuing its traceparent header): attempts join that trace.
            traceparent: currentTraceparent() ?? null,
          });
          return [];
        };
        return Object.assign(decideOne, { finish: () => (decided.size === 0 ? [] : [publicEventsSliceStatement([...decided.values()])]) });
      },
    },
    // Partitions in parallel keep the webhook latency low while one slice waits on Postgres.
    partitionsConcurrently: DOMAIN_TOPIC_PARTITIONS,
    // Busy partitions only (ADR 0020): a webhook waits at most this long more, and only under load.
    paceMs: 50,
  };
}

/**
 * Files users sent, as media registered them: a message.received delivery waits for its files, so
 * that the receiver's GET /media/{id} finds them when the webhook arrives.
 */
export function mediaRegistryConsumer(): ConsumerSpec {
  return {
    name: MEDIA_REGISTRY_CONSUMER,
    topics: [TOPICS.mediaEvents],
    handlers: {
      MediaReceivedFromUser: async (em, event) => {
        await em.execute(`insert into webhook_dispatcher.known_media (media_id) values (?) on conflict do nothing`, [event.data.mediaId]);
        await em.execute(`select pg_notify(?, '')`, [DELIVERIES_CHANNEL]);
      },
    },
  };
}
