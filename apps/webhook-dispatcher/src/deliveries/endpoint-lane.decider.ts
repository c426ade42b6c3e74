import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveEndpointLane, initialEndpointLane, type EndpointLaneEvent, type EndpointLaneState } from './endpoint-lane.state';

/**
 * How hard one dispatcher replica may press an endpoint: the webhook dispatcher's rule that tenants
 * do not wait on each other.
 * - An endpoint that answers gets up to `maxInFlight` attempts at once and never more, so a hanging
 *   endpoint holds at most that many connections and worker slots.
 * - Every failure in a row halves that bound: a struggling endpoint is pressed less.
 * - After OPEN_AFTER_FAILURES failures in a row the lane is open (the endpoint is failing): one
 *   attempt at a time probes it, at most one every PROBE_EVERY_MS, and its other due deliveries are
 *   held, that is recorded as attempts that were not sent and retried on the spec's schedule like
 *   failed ones. A failing endpoint thus neither takes the worker's slots and claims nor makes its
 *   own deliveries' attempts late.
 * - An answer that is not a retryable failure (a 2xx, or a 4xx that ends its delivery) shows the
 *   endpoint up: the lane is whole again.
 * Probes of open lanes share a budget of the replica's slots (`probesAvailable`), so that many
 * failing endpoints together still leave room for the healthy ones.
 */

/** Failures in a row after which a lane holds all but one probe attempt. */
export const OPEN_AFTER_FAILURES = 5;
/** An open lane's next probe starts this long after its last failure at the earliest. */
export const PROBE_EVERY_MS = 1_000;

export type EndpointLaneCommand = Command<
  'PlanClaim',
  {
    /** This replica's attempts to the endpoint under way. */
    inFlight: number;
    /** The bound on attempts at once for an endpoint that answers. */
    maxInFlight: number;
    /** Whether the replica's budget for probes of open lanes has room. */
    probesAvailable: boolean;
  }
>;

export function isLaneOpen(state: EndpointLaneState): boolean {
  return state.failuresInARow >= OPEN_AFTER_FAILURES;
}

export function decideEndpointLane(command: EndpointLaneCommand, state: EndpointLaneState): EndpointLaneEvent[] {
  switch (command.type) {
    case 'PlanClaim': {
      const { inFlight, maxInFlight, probesAvailable } = command.data;
      if (isLaneOpen(state)) {
        const probeDue = state.lastFailureAt === null || command.metadata.now.getTime() - Date.parse(state.lastFailureAt) >= PROBE_EVERY_MS;
        const attempts = probesAvailable && probeDue ? Math.max(0, 1 - inFlight) : 0;
        return [{ type: 'LaneClaimPlanned', data: { attempts, holdRest: true } }];
      }
      const bound = Math.max(1, Math.floor(maxInFlight / 2 ** state.failuresInARow));
      return [{ type: 'LaneClaimPlanned', data: { attempts: Math.max(0, bound - inFlight), holdRest: false } }];
    }
    default:
      return assertNever(command.type);
  }
}

export const endpointLaneDecider: Decider<EndpointLaneState, EndpointLaneCommand, EndpointLaneEvent> = {
  initialState: initialEndpointLane,
  decide: decideEndpointLane,
  evolve: evolveEndpointLane,
};
