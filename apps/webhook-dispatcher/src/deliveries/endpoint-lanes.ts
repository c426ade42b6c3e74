import { decideEndpointLane, isLaneOpen } from './endpoint-lane.decider';
import { evolveEndpointLane, initialEndpointLane, type EndpointLaneEvent, type EndpointLaneState } from './endpoint-lane.state';
import { describeAttempt, isRetryableStatus, type AttemptResult } from './delivery.decider';

/** Lanes remembered at most: endpoints failing lately (a lane whole again is forgotten). */
const MAX_LANES_KEPT = 10_000;

/** What a claim may take of one endpoint (CLAIM_SQL's `$6..$8`), for endpoints whose plan is not the default. */
export interface LanePlans {
  endpointIds: string[];
  attempts: number[];
  holds: number[];
}

/**
 * This replica's lanes (endpoint-lane.decider.ts): each endpoint's recent outcomes and attempts
 * under way, and the plans a claim follows. Memory is bounded: only failing endpoints keep a
 * state (at most MAX_LANES_KEPT, the least recently failing forgotten first), and in-flight
 * counts exist only while attempts are under way.
 */
export class EndpointLanes {
  private readonly states = new Map<string, EndpointLaneState>();
  private readonly inFlight = new Map<string, number>();
  private probes = 0;

  constructor(
    /** Attempts at once to one endpoint that answers. */
    readonly maxInFlightPerEndpoint: number,
    /** Probes of open lanes at once, over all endpoints. */
    readonly maxProbes: number,
    /** Deliveries one claim may hold per open lane. */
    readonly holdsPerClaim: number,
  ) {}

  /** Plans for every endpoint with attempts under way or a failing record; the others get the default. */
  plans(now: Date): LanePlans {
    const plans: LanePlans = { endpointIds: [], attempts: [], holds: [] };
    for (const endpointId of new Set([...this.inFlight.keys(), ...this.states.keys()])) {
      const plan = this.plan(endpointId, this.inFlight.get(endpointId) ?? 0, now);
      plans.endpointIds.push(endpointId);
      plans.attempts.push(plan.attempts);
      plans.holds.push(plan.holdRest ? this.holdsPerClaim : 0);
    }
    return plans;
  }

  /** Why a held attempt was not sent, as its delivery log shows it. */
  holdReason(endpointId: string): string {
    const { lastError } = this.state(endpointId);
    return `not sent: the endpoint is failing${lastError ? ` (${lastError})` : ''}`;
  }

  /** An attempt starts; it is a probe when the lane is open. Returns whether it is one. */
  started(endpointId: string): boolean {
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    const probe = isLaneOpen(this.state(endpointId));
    if (probe) this.probes++;
    return probe;
  }

  /**
   * An attempt ended (null: abandoned, nothing sent). Returns whether the lane had been full, so
   * that the worker claims again for what waited on it.
   */
  finished(endpointId: string, probe: boolean, result: AttemptResult | null, now: Date): boolean {
    const before = this.inFlight.get(endpointId) ?? 0;
    const wasFull = this.plan(endpointId, before, now).attempts === 0;
    if (before <= 1) this.inFlight.delete(endpointId);
    else this.inFlight.set(endpointId, before - 1);
    if (probe) this.probes--;
    const event = laneEventOf(result, now);
    if (event) this.apply(endpointId, event);
    // An open lane's next probe waits its turn: its end makes no room worth a claim of its own.
    return wasFull && !isLaneOpen(this.state(endpointId));
  }

  /** Open lanes now (a gauge). */
  openCount(): number {
    let open = 0;
    for (const state of this.states.values()) if (isLaneOpen(state)) open++;
    return open;
  }

  private plan(endpointId: string, inFlight: number, now: Date): { attempts: number; holdRest: boolean } {
    const [planned] = decideEndpointLane(
      { type: 'PlanClaim', data: { inFlight, maxInFlight: this.maxInFlightPerEndpoint, probesAvailable: this.probes < this.maxProbes }, metadata: { now } },
      this.state(endpointId),
    );
    return planned?.type === 'LaneClaimPlanned' ? planned.data : { attempts: 0, holdRest: false };
  }

  private state(endpointId: string): EndpointLaneState {
    return this.states.get(endpointId) ?? initialEndpointLane();
  }

  private apply(endpointId: string, event: EndpointLaneEvent): void {
    const next = evolveEndpointLane(this.state(endpointId), event);
    this.states.delete(endpointId);
    if (next.failuresInARow === 0) return;
    this.states.set(endpointId, next);
    if (this.states.size > MAX_LANES_KEPT) this.states.delete(this.states.keys().next().value as string);
  }
}

/** What a sent attempt's result tells of its endpoint; nothing for an abandoned or held one. */
function laneEventOf(result: AttemptResult | null, at: Date): EndpointLaneEvent | null {
  if (!result || result.kind === 'held') return null;
  if (result.kind === 'response' && !isRetryableStatus(result.status)) return { type: 'LaneAttemptAnswered', data: {} };
  return { type: 'LaneAttemptFailed', data: { error: describeAttempt(result).error, at: at.toISOString() } };
}
