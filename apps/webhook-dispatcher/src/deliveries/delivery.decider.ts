import { WEBHOOKS, type WebhookEndpointState } from '#platform/contracts';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { evolveDelivery, type DeliveryEvent, type DeliveryState } from './delivery.state';

/**
 * What one attempt gave: an answer, no answer in time, a broken connection, a URL refused at
 * delivery (SSRF), or nothing sent because the endpoint's lane holds it (the endpoint is failing:
 * endpoint-lane.decider.ts).
 */
export type AttemptResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'network'; error: string }
  | { kind: 'refused'; error: string }
  | { kind: 'held'; error: string };

/** A held attempt's retry is due up to this share of its delay later than the schedule, so held retries do not all fall due together. */
export const MAX_HELD_SPREAD = 0.1;

export type DeliveryCommand =
  /**
   * `attempt` is the number the request carried (Svc-Delivery-Attempt); `metadata.now` when it ended.
   * `spread` (0 to MAX_HELD_SPREAD, from the delivery's id) places a held attempt's retry.
   */
  | Command<'RecordAttempt', { attempt: number; result: AttemptResult; spread?: number }>
  /** The endpoint was deleted, disabled or changed its URL: nothing more will be tried. */
  | Command<'AbandonDelivery', { reason: string }>
  /**
   * D24, POST …/replay: `replayId` is the new delivery's id. `event` is the stored event (null when
   * no longer stored; `payloadKept` false once its payload was dropped), `endpointState` the
   * delivery's endpoint now (null when deleted).
   */
  | Command<'ReplayDelivery', { replayId: string; event: { createdAt: string; payloadKept: boolean } | null; endpointState: WebhookEndpointState | null }>;

/** About 10 s, doubling, capped at 1 h (spec, retry rule 2). Attempt 1's failure waits 10 s. */
export function retryDelayMs(failedAttempt: number): number {
  return Math.min(WEBHOOKS.firstRetryDelayMs * 2 ** Math.max(0, failedAttempt - 1), WEBHOOKS.maxRetryDelayMs);
}

/** 408, 429, 5xx and redirects (which are not followed) are worth another try; other 4xx are final. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500 || (status >= 300 && status < 400);
}

/** An attempt's result as the delivery log and D25's email show it: the status, or what went wrong. */
export function describeAttempt(result: AttemptResult): { responseStatus: number | null; error: string } {
  switch (result.kind) {
    case 'response':
      return { responseStatus: result.status, error: `answered ${result.status}` };
    case 'timeout':
      return { responseStatus: null, error: `no answer within ${WEBHOOKS.answerTimeoutMs / 1000} s` };
    case 'network':
    case 'refused':
    case 'held':
      return { responseStatus: null, error: result.error };
  }
}

export function decideDelivery(command: DeliveryCommand, state: DeliveryState): DeliveryEvent[] {
  switch (command.type) {
    case 'RecordAttempt': {
      // A late result (say, of an attempt whose lease ran out while another replica finished it) changes nothing.
      if (state.status !== 'pending') return [];
      const { attempt, result } = command.data;
      const at = command.metadata.now.toISOString();
      if (result.kind === 'response' && result.status >= 200 && result.status < 300) {
        return [{ type: 'DeliverySucceeded', data: { attempt, at, responseStatus: result.status } }];
      }
      const { responseStatus, error } = describeAttempt(result);
      const retryable = result.kind !== 'response' || isRetryableStatus(result.status);
      const deadline = Date.parse(state.createdAt) + WEBHOOKS.retryWindowMs;
      const atMs = command.metadata.now.getTime();
      if (!retryable || atMs >= deadline) return [{ type: 'DeliveryFailed', data: { attempt, at, responseStatus, error } }];
      const spread = result.kind === 'held' ? Math.min(Math.max(command.data.spread ?? 0, 0), MAX_HELD_SPREAD) : 0;
      const delay = Math.round(retryDelayMs(attempt) * (1 + spread));
      // The last retry lands on the 24-hour mark rather than beyond it.
      const nextAttemptAt = new Date(Math.min(atMs + delay, deadline)).toISOString();
      return [{ type: 'DeliveryAttemptFailed', data: { attempt, at, responseStatus, error, nextAttemptAt } }];
    }
    case 'AbandonDelivery':
      if (state.status !== 'pending') return [];
      return [{ type: 'DeliveryFailed', data: { attempt: null, at: command.metadata.now.toISOString(), responseStatus: null, error: command.data.reason } }];
    case 'ReplayDelivery': {
      // The original is unchanged: the decision is a new delivery of the same event (its id, so its stored bytes) to the same endpoint.
      if (state.status === 'absent' || !state.delivery) throw new DomainError('not_found', 'No such webhook delivery.');
      if (state.status === 'pending') throw new DomainError('delivery_in_progress');
      const { event, endpointState, replayId } = command.data;
      const now = command.metadata.now;
      if (!event || !event.payloadKept || now.getTime() - Date.parse(event.createdAt) > WEBHOOKS.payloadRetentionMs) throw new DomainError('payload_expired');
      if (endpointState === null) throw new DomainError('not_found', 'The endpoint of this delivery was deleted.');
      if (endpointState !== 'enabled') throw new DomainError('subscription_not_verified', 'The endpoint must be enabled to receive a replay.');
      const { deliveryId, ...same } = state.delivery;
      return [{ type: 'DeliveryCreated', data: { ...same, deliveryId: replayId, createdAt: now.toISOString(), replayOf: deliveryId } }];
    }
    default:
      return assertNever(command);
  }
}

export const deliveryDecider: Decider<DeliveryState, DeliveryCommand, DeliveryEvent> = {
  initialState: () => ({ status: 'absent', delivery: null, attempts: 0, createdAt: '', nextAttemptAt: null }),
  decide: decideDelivery,
  evolve: evolveDelivery,
};
