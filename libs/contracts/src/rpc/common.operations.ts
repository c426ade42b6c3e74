/**
 * Operations every service answers (service-kit): its clock, and waiting until its consumers applied events.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { EventRef } from '../rpc';

/** What a service's clock says, against real time (the test clock's offset). */
export interface ClockReading {
  offsetMs: number;
  now: string;
}

/** Which consumer of the service should have applied which events. */
export interface AwaitAppliedCall {
  /** The consumer's name within the service (`media`, `user-events`, `consent`, …). */
  consumer: string;
  events: EventRef[];
}

export interface CommonOperations {
  /** The service's clock offset and time, so the test clock can wait until every service follows it. */
  'clock.offset': { request: Record<string, never>; reply: ClockReading };
  /** Returns once the named consumer has applied these events (refused with 500 if it does not in time). */
  'events.awaitApplied': { request: AwaitAppliedCall; reply: { applied: true } };
}
