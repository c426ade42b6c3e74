/**
 * What one dispatcher replica knows of an endpoint's recent attempts: its lane. Kept in memory per
 * replica (a restart learns it again within a few attempts); the rules are in endpoint-lane.decider.ts.
 */
export type EndpointLaneEvent =
  /** A sent attempt got an answer that ends or delivers its delivery (2xx, or a final 4xx). */
  | { type: 'LaneAttemptAnswered'; data: Record<string, never> }
  /** A sent attempt failed in a way its delivery retries: timeout, network error, 408, 429, 5xx, a URL refused at delivery. */
  | { type: 'LaneAttemptFailed'; data: { error: string; at: string } }
  /** What the next claim may take of this endpoint's due deliveries. */
  | { type: 'LaneClaimPlanned'; data: { attempts: number; holdRest: boolean } };

export interface EndpointLaneState {
  failuresInARow: number;
  /** The latest failure, shown on the attempts a lane holds, and when it ended. */
  lastError: string | null;
  lastFailureAt: string | null;
}

export const initialEndpointLane = (): EndpointLaneState => ({ failuresInARow: 0, lastError: null, lastFailureAt: null });

export function evolveEndpointLane(state: EndpointLaneState, event: EndpointLaneEvent): EndpointLaneState {
  switch (event.type) {
    case 'LaneAttemptAnswered':
      return initialEndpointLane();
    case 'LaneAttemptFailed':
      return { failuresInARow: state.failuresInARow + 1, lastError: event.data.error, lastFailureAt: event.data.at };
    case 'LaneClaimPlanned':
      return state;
  }
}
