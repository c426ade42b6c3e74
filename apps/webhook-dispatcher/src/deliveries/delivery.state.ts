import type { WebhookDeliveryStatus } from '#platform/contracts';

/**
 * Events of one delivery (an event to one endpoint). Deliveries are state-stored: the row in
 * `deliveries` is the state and `delivery_attempts` keeps each attempt, because thousands of
 * deliveries a second would swamp the event store without telling anyone anything new.
 */
export type DeliveryEvent =
  /** The fan-out, a test call or a replay created it; the first attempt is due at once. */
  | { type: 'DeliveryCreated'; data: { createdAt: string } }
  | { type: 'DeliverySucceeded'; data: { attempt: number; at: string; responseStatus: number } }
  | { type: 'DeliveryAttemptFailed'; data: { attempt: number; at: string; responseStatus: number | null; error: string; nextAttemptAt: string } }
  | { type: 'DeliveryFailed'; data: { attempt: number | null; at: string; responseStatus: number | null; error: string } };

export interface DeliveryState {
  status: WebhookDeliveryStatus | 'absent';
  /** Attempts started so far (a crash mid-attempt still counts it). */
  attempts: number;
  createdAt: string;
  nextAttemptAt: string | null;
}

export function evolveDelivery(state: DeliveryState, event: DeliveryEvent): DeliveryState {
  switch (event.type) {
    case 'DeliveryCreated':
      return { status: 'pending', attempts: 0, createdAt: event.data.createdAt, nextAttemptAt: event.data.createdAt };
    case 'DeliverySucceeded':
      return { ...state, attempts: event.data.attempt, status: 'delivered', nextAttemptAt: null };
    case 'DeliveryAttemptFailed':
      return { ...state, attempts: event.data.attempt, nextAttemptAt: event.data.nextAttemptAt };
    case 'DeliveryFailed':
      return { ...state, attempts: event.data.attempt ?? state.attempts, status: 'failed', nextAttemptAt: null };
  }
}
