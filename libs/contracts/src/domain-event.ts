/**
 * The envelope of every domain event on a Kafka topic (architecture section 2).
 * The Kafka key is the aggregate whose order matters; headers repeat eventId, type and correlationId, and carry the W3C traceparent.
 */
export interface DomainEvent<Type extends string = string, Data = unknown> {
  /** UUIDv7; consumers dedupe on it (inbox). */
  eventId: string;
  /** Past-tense event name, e.g. `AppStatusChanged`. */
  type: Type;
  /** Version of `data`'s shape for this type. */
  schemaVersion: number;
  /** When it happened, by the platform clock (ISO 8601). */
  occurredAt: string;
  /** The app it concerns, or null for platform-wide events (orgs, users). */
  appId: string | null;
  /** The request id (`req_…`) that started the chain, if any. */
  correlationId: string | null;
  /** The event or request id that directly caused this one, if any. */
  causationId: string | null;
  /** Aggregate stream the event belongs to. */
  streamId: string;
  /** Position of the event in its stream (1-based); projections use it to ignore stale updates. */
  streamVersion: number;
  data: Data;
}

/** Kafka header names carried by every domain event. */
export const EVENT_HEADERS = {
  eventId: 'event-id',
  type: 'event-type',
  correlationId: 'correlation-id',
  /** W3C trace context of the unit of work that appended the event (absent when there was none). */
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  /** Set by `platformctl outbox redrive` on the copies it republishes: when (ISO), so consumers know a copy from a first delivery. */
  redrivenAt: 'redriven-at',
} as const;
