import type { EntityManager } from '@mikro-orm/postgresql';
import { DOMAIN_TOPIC_PARTITIONS, TOPICS, type DomainEvent } from '@platform/contracts';
import { currentTraceparent, type ConsumerSpec, type ServiceRuntime } from '@platform/service-kit';
import { createDeliveries, DELIVERIES_CHANNEL, storePublicEventForEndpoints } from '../deliveries/delivery.records';
import { PUBLIC_SOURCE_TYPES, toPublicEvent } from './public-event.mapper';

export const PUBLIC_EVENTS_CONSUMER = 'public-events';
export const MEDIA_REGISTRY_CONSUMER = 'media-registry';

/**
 * Turns domain events into public events and one delivery per enabled endpoint of the app that
 * subscribed to the type, in the transaction that records the domain event in the inbox. The
 * `evt_` id and the original deliveries' ids are derived from the domain event, so a consumer
 * group reset to offset 0 finds everything in place and creates nothing.
 */
export function publicEventsConsumer(runtime: ServiceRuntime): ConsumerSpec {
  const fanOut = async (em: EntityManager, event: DomainEvent) => {
    const publicEvent = toPublicEvent(event);
    if (!publicEvent || !event.appId) return;
    const { envelope } = publicEvent;
    const now = runtime.clock.now();
    const endpointIds = await storePublicEventForEndpoints(em, {
      eventId: envelope.id,
      appId: event.appId,
      type: envelope.type,
      payload: publicEvent.payload,
      requiresMedia: publicEvent.requiresMedia,
      sourceEventId: event.eventId,
      now,
    });
    // The handler runs in the event's span (continuing its traceparent header): attempts join that trace.
    const traceparent = currentTraceparent() ?? null;
    await createDeliveries(em, { appId: event.appId, eventId: envelope.id, type: envelope.type, endpointIds, now, traceparent });
  };
  return {
    name: PUBLIC_EVENTS_CONSUMER,
    topics: [TOPICS.messagingEvents, TOPICS.consentEvents, TOPICS.profileEvents],
    handlers: Object.fromEntries(PUBLIC_SOURCE_TYPES.map((type) => [type, fanOut])),
    // Every event waits on a few round trips to Postgres; partitions in parallel keep the webhook latency low.
    partitionsConcurrently: DOMAIN_TOPIC_PARTITIONS,
    paceMs: 10,
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
        await em.execute(`insert into webhook_dispatcher.known_media (media_id) values (?) on conflict do nothing`, [(event.data as { mediaId: string }).mediaId]);
        await em.execute(`select pg_notify(?, '')`, [DELIVERIES_CHANNEL]);
      },
    },
  };
}
