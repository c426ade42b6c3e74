import type { EntityManager } from '@mikro-orm/postgresql';
import type { KafkaMessage } from 'kafkajs';
import { EVENT_HEADERS, type DomainEvent, type EventOf, type PlatformEventType } from '#platform/contracts';
import { validateDomainEvent } from './event-validator';

export type EventHandler = (em: EntityManager, event: DomainEvent) => Promise<void>;

/** Effects by event type, each handler given its event with `type` and `data` narrowed (libs/contracts' PlatformEvent). */
export type EventHandlers = { [T in PlatformEventType]?: (em: EntityManager, event: EventOf<T>) => Promise<void> };

/**
 * The typed handlers as the consumer calls them. Sound: a handler is only ever given an event that
 * passed its type's JSON schema (parseEventMessage validates before choosing the handler).
 */
export function byEventType(handlers: EventHandlers): Record<string, EventHandler> {
  return handlers as Record<string, EventHandler>;
}

/** A message of a batch, parsed: an event to apply, one to skip, or a payload to dead-letter. */
export type Parsed =
  | { kind: 'apply'; message: KafkaMessage; event: DomainEvent; handler: EventHandler; raw: string }
  | { kind: 'skip'; message: KafkaMessage }
  | { kind: 'dead'; message: KafkaMessage; eventId: string | null; raw: string; reason: string };

/**
 * What a consumer with these handlers does with a message: apply it (a valid event of a handled
 * type), skip it (a type it does not handle) or dead-letter it (not JSON, not an object, invalid).
 * A message whose type header (every relayed event has one) names a type it does not handle is
 * skipped before its value is read. Projection rebuilds read topics with the same rules, so they
 * apply exactly what consumers apply.
 */
export function parseEventMessage(message: KafkaMessage, handlers: Record<string, EventHandler>): Parsed {
  const headerType = headerString(message.headers?.[EVENT_HEADERS.type]);
  if (headerType !== undefined && !Object.hasOwn(handlers, headerType)) return { kind: 'skip', message };
  const raw = message.value?.toString('utf8') ?? '';
  let event: DomainEvent;
  try {
    event = JSON.parse(raw) as DomainEvent;
  } catch {
    return { kind: 'dead', message, eventId: null, raw, reason: 'payload is not JSON' };
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event))
    return { kind: 'dead', message, eventId: null, raw, reason: 'payload is not a JSON object' };
  // Own properties only: a type such as "constructor" must not find Object.prototype's.
  const handler = typeof event.type === 'string' && Object.hasOwn(handlers, event.type) ? handlers[event.type] : undefined;
  if (!handler) return { kind: 'skip', message };
  const problem = validateDomainEvent(event);
  if (problem) return { kind: 'dead', message, eventId: event.eventId ?? null, raw, reason: `invalid event: ${problem}` };
  return { kind: 'apply', message, event, handler, raw };
}

/** A Kafka header value as a string (the first, when repeated). */
export function headerString(value: Buffer | string | (Buffer | string)[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
