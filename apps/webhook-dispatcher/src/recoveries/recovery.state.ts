import type { AppEventType } from '#platform/contracts';

/**
 * Events of an endpoint's recovery (POST /webhooks/{id}/recover, ADR 0224). State-stored like
 * deliveries: `endpoint_recoveries` holds each endpoint's latest recovery, and the deliveries a
 * recovery made carry its id.
 */
export type RecoveryEvent =
  /** Decided: the events of `eventTypes` that happened in [since, until) will be looked through. */
  | { type: 'RecoveryStarted'; data: Recovery & { startedAt: string } }
  /** One batch of the events looked through: a delivery for each the endpoint missed. */
  | { type: 'RecoveryDeliveriesCreated'; data: { recoveryId: string; deliveries: RecoveredDelivery[] } }
  /** Every event was looked through, or the endpoint stopped being enabled meanwhile. */
  | { type: 'RecoveryFinished'; data: { recoveryId: string; recovered: number; at: string } };

export interface Recovery {
  recoveryId: string;
  endpointId: string;
  since: string;
  until: string;
  /** The types the endpoint subscribed to when the recovery started (webhook.test never). */
  eventTypes: AppEventType[];
}

/** A delivery a recovery creates: the event again, and the endpoint's latest delivery of it (null: it had none). */
export interface RecoveredDelivery {
  deliveryId: string;
  eventId: string;
  eventType: AppEventType;
  replayOf: string | null;
}

export type RecoveryState =
  | { status: 'none' }
  /** Its deliveries are being created; `recovered` so far. */
  | { status: 'creating'; recovery: Recovery; recovered: number }
  | { status: 'finished'; recovery: Recovery; recovered: number };

export function evolveRecovery(state: RecoveryState, event: RecoveryEvent): RecoveryState {
  switch (event.type) {
    case 'RecoveryStarted': {
      const { startedAt: _startedAt, ...recovery } = event.data;
      return { status: 'creating', recovery, recovered: 0 };
    }
    case 'RecoveryDeliveriesCreated':
      return state.status === 'creating' ? { ...state, recovered: state.recovered + event.data.deliveries.length } : state;
    case 'RecoveryFinished':
      return state.status === 'creating' ? { status: 'finished', recovery: state.recovery, recovered: event.data.recovered } : state;
  }
}
