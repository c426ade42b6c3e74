import { APP_EVENT_TYPES, derivedId, ID_PREFIX, WEBHOOKS, type AppEventType, type PublicEventType, type WebhookEndpointState } from '#platform/contracts';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { evolveRecovery, type RecoveredDelivery, type RecoveryEvent, type RecoveryState } from './recovery.state';

/** The endpoint as it is now (locked by the handler while it decides). */
export interface RecoveryEndpoint {
  state: WebhookEndpointState;
  events: PublicEventType[];
}

/** A kept event of the app the handler read, with what the endpoint had of it. */
export interface RecoveryCandidate {
  eventId: string;
  eventType: PublicEventType;
  /** When it happened (its id's time). */
  happenedAt: string;
  /** A delivery of it to the endpoint was delivered (an original, a replay, an earlier recovery's). */
  delivered: boolean;
  /** A delivery of it to the endpoint is still pending: its retries will deliver it. */
  pending: boolean;
  /** The endpoint's latest delivery of it, whatever its end; null when it never had one. */
  lastDeliveryId: string | null;
}

export type RecoveryCommand =
  /**
   * POST /webhooks/{id}/recover. `endpoint` is the app's endpoint (null: none of the app's);
   * `deliveriesPending`: a delivery the endpoint's latest recovery made is still pending;
   * `creatorGone`: that recovery stopped creating deliveries without finishing (its process ended).
   */
  | Command<
      'StartRecovery',
      { recoveryId: string; endpointId: string; since: string; endpoint: RecoveryEndpoint | null; deliveriesPending: boolean; creatorGone: boolean }
    >
  /** One batch of candidates, in id order, with the endpoint as it is now (null: deleted). */
  | Command<'CreateRecoveryDeliveries', { endpoint: RecoveryEndpoint | null; candidates: RecoveryCandidate[] }>
  | Command<'FinishRecovery', Record<string, never>>;

const invalidSince = (issue: string) => DomainError.invalid([{ field: 'since', issue }]);

export function decideRecovery(command: RecoveryCommand, state: RecoveryState): RecoveryEvent[] {
  const now = command.metadata.now;
  switch (command.type) {
    case 'StartRecovery': {
      const { endpoint, since } = command.data;
      if (!endpoint) throw new DomainError('not_found', 'No such webhook endpoint.');
      const sinceMs = Date.parse(since);
      if (!Number.isFinite(sinceMs)) throw invalidSince('must be a date-time');
      if (sinceMs > now.getTime()) throw invalidSince('must not be in the future');
      if (now.getTime() - sinceMs > WEBHOOKS.recoverWindowMs) throw invalidSince('must be at most 7 days ago');
      if (endpoint.state === 'disabled') throw new DomainError('endpoint_disabled');
      if (endpoint.state !== 'enabled') throw new DomainError('subscription_not_verified', 'Verify the endpoint before recovering its events.');
      // One at a time (ADR 0224): while the latest recovery creates its deliveries, and while any of them is pending.
      const creating = state.status === 'creating' && !command.data.creatorGone;
      if (creating || command.data.deliveriesPending) throw new DomainError('recover_in_progress');
      const at = now.toISOString();
      return [
        {
          type: 'RecoveryStarted',
          data: {
            recoveryId: command.data.recoveryId,
            endpointId: command.data.endpointId,
            since: new Date(sinceMs).toISOString(),
            until: at,
            eventTypes: APP_EVENT_TYPES.filter((type) => endpoint.events.includes(type)),
            startedAt: at,
          },
        },
      ];
    }
    case 'CreateRecoveryDeliveries': {
      if (state.status !== 'creating') throw new Error('deliveries are created only by a recovery that is creating them');
      const { recovery } = state;
      const { endpoint } = command.data;
      // Disabled, deleted or unverified meanwhile: what was created stays (the worker abandons it), nothing more is.
      if (!endpoint || endpoint.state !== 'enabled') return [finished(state, now)];
      const [from, until] = [Date.parse(recovery.since), Date.parse(recovery.until)];
      const deliveries: RecoveredDelivery[] = command.data.candidates
        .filter((c): c is RecoveryCandidate & { eventType: AppEventType } => (recovery.eventTypes as readonly string[]).includes(c.eventType))
        .filter((c) => Date.parse(c.happenedAt) >= from && Date.parse(c.happenedAt) < until)
        .filter((c) => !c.delivered && !c.pending)
        .map((c) => ({
          deliveryId: derivedId(ID_PREFIX.webhookDelivery, now.getTime(), `recovery:${recovery.recoveryId}:${c.eventId}`),
          eventId: c.eventId,
          eventType: c.eventType,
          replayOf: c.lastDeliveryId,
        }));
      return deliveries.length > 0 ? [{ type: 'RecoveryDeliveriesCreated', data: { recoveryId: recovery.recoveryId, deliveries } }] : [];
    }
    case 'FinishRecovery':
      return state.status === 'creating' ? [finished(state, now)] : [];
    default:
      return assertNever(command);
  }
}

function finished(state: Extract<RecoveryState, { status: 'creating' }>, now: Date): RecoveryEvent {
  return { type: 'RecoveryFinished', data: { recoveryId: state.recovery.recoveryId, recovered: state.recovered, at: now.toISOString() } };
}

export const recoveryDecider: Decider<RecoveryState, RecoveryCommand, RecoveryEvent> = {
  initialState: () => ({ status: 'none' }),
  decide: decideRecovery,
  evolve: evolveRecovery,
};
