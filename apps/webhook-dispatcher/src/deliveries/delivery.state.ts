import type { PublicEventType, WebhookDeliveryStatus } from '#platform/contracts';

/**
 * Events of one delivery (an event to one endpoint). Deliveries are state-stored: the row in
 * `deliveries` is the state and `delivery_attempts` keeps each attempt, because thousands of
 * deliveries a second would swamp the event store without telling anyone anything new.
 */
export type DeliveryEvent =
  /** The fan-out, a test call or a replay (`replayOf`: the delivery replayed) created it; the first attempt is due at once. */
  | { type: 'DeliveryCreated'; data: DeliveryIdentity & { createdAt: string; replayOf: string | null } }
  | { type: 'DeliverySucceeded'; data: { attempt: number; at: string; responseStatus: number } }
  | { type: 'DeliveryAttemptFailed'; data: { attempt: number; at: string; responseStatus: number | null; error: string; nextAttemptAt: string } }
  | { type: 'DeliveryFailed'; data: { attempt: number | null; at: string; responseStatus: number | null; error: string } };

/** Which delivery it is: of which event (whose stored payload bytes every attempt sends), to which endpoint. */
export interface DeliveryIdentity {
  deliveryId: string;
  eventId: string;
  eventType: PublicEventType;
  endpointId: string;
}

export interface DeliveryState {
  status: WebhookDeliveryStatus | 'absent';
  /** null while absent. */
  delivery: DeliveryIdentity | null;
  /** Attempts started so far (a crash mid-attempt still counts it). */
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
}

export function evolveDelivery(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'DeliveryCreated': {
      const { deliveryId, eventId, eventType, endpointId, createdAt } = event.data;
      return { status: 'pending', delivery: { deliveryId, eventId, eventType, endpointId }, attempts: 0, createdAt, nextAttemptAt: createdAt };
    }
    case 'DeliverySucceeded':
      return { ...state, attempts: event.data.attempt, status: 'delivered', nextAttemptAt: null };
    case 'DeliveryAttemptFailed':
      return { ...state, attempts: event.data.attempt, nextAttemptAt: event.data.nextAttemptAt };
    case 'DeliveryFailed':
      return { ...state, attempts: event.data.attempt ?? state.attempts, status: 'failed', nextAttemptAt: null };
  }
}
