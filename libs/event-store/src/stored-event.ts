import type { DomainEvent } from '#platform/contracts';
import type { NewEvent } from './event-store';

/** An event as its aggregate's decider made it, in its stored envelope: `type` and `data` narrowed. */
export type StoredEvent<E extends NewEvent> = E extends NewEvent ? DomainEvent<E['type'], E['data']> : never;

/**
 * A guard for one aggregate's stored events, given every type its decider emits (a type left out is
 * a compile error). Sound: a stream holds only what its decider decided, and `type` says which.
 */
export function storedEventGuard<E extends NewEvent>(types: Record<E['type'], true>): (event: DomainEvent) => event is StoredEvent<E> {
  return (event): event is StoredEvent<E> => Object.hasOwn(types, event.type);
}
