import { deciderSpecification } from '#platform/decider/testing';
import { endpointLaneDecider, OPEN_AFTER_FAILURES, PROBE_EVERY_MS, type EndpointLaneCommand } from './endpoint-lane.decider';
import type { EndpointLaneEvent } from './endpoint-lane.state';

const spec = deciderSpecification(endpointLaneDecider);
const start = Date.parse('2026-01-01T00:00:00.000Z');
/** Failures end by the start; plans are made a probe interval later unless said otherwise. */
const plan = (inFlight: number, probesAvailable = true, afterMs = PROBE_EVERY_MS): EndpointLaneCommand => ({
  type: 'PlanClaim',
  data: { inFlight, maxInFlight: 8, probesAvailable },
  metadata: { now: new Date(start + afterMs) },
});
const failed = (error = 'answered 500', atMs = 0): EndpointLaneEvent => ({
  type: 'LaneAttemptFailed',
  data: { error, at: new Date(start + atMs).toISOString() },
});
const answered: EndpointLaneEvent = { type: 'LaneAttemptAnswered', data: {} };
const failures = (n: number) => Array.from({ length: n }, () => failed());
const planned = (attempts: number, holdRest = false): EndpointLaneEvent[] => [{ type: 'LaneClaimPlanned', data: { attempts, holdRest } }];

describe('Endpoint lane decider', () => {
  it('an endpoint that answers gets its bound of attempts at once', () => spec.given([]).when(plan(0)).then(planned(8)));

  it('attempts under way count against the bound; a full lane takes nothing', () => {
    spec.given([answered]).when(plan(5)).then(planned(3));
    spec.given([]).when(plan(8)).then(planned(0));
    spec.given([]).when(plan(12)).then(planned(0));
  });

  it('every failure in a row halves the bound, down to one', () => {
    spec.given(failures(1)).when(plan(0)).then(planned(4));
    spec.given(failures(2)).when(plan(0)).then(planned(2));
    spec.given(failures(3)).when(plan(0)).then(planned(1));
    spec
      .given(failures(OPEN_AFTER_FAILURES - 1))
      .when(plan(0))
      .then(planned(1));
    spec.given(failures(2)).when(plan(1)).then(planned(1));
  });

  it(`after ${OPEN_AFTER_FAILURES} failures in a row one probe is sent and every other due delivery is held`, () => {
    spec.given(failures(OPEN_AFTER_FAILURES)).when(plan(0)).then(planned(1, true));
    spec
      .given(failures(OPEN_AFTER_FAILURES + 20))
      .when(plan(0))
      .then(planned(1, true));
  });

  it('an open lane with its probe under way holds everything', () => spec.given(failures(OPEN_AFTER_FAILURES)).when(plan(1)).then(planned(0, true)));

  it(`an open lane is probed at most once every ${PROBE_EVERY_MS} ms after its last failure, and holds meanwhile`, () => {
    spec
      .given(failures(OPEN_AFTER_FAILURES))
      .when(plan(0, true, PROBE_EVERY_MS - 1))
      .then(planned(0, true));
    spec
      .given([...failures(OPEN_AFTER_FAILURES), failed('no answer within 10 s', 5_000)])
      .when(plan(0, true, 5_500))
      .then(planned(0, true));
    spec
      .given([...failures(OPEN_AFTER_FAILURES), failed('no answer within 10 s', 5_000)])
      .when(plan(0, true, 6_000))
      .then(planned(1, true));
  });

  it('a lane not yet open is never made to wait for a probe interval', () =>
    spec
      .given(failures(3))
      .when(plan(0, true, 1))
      .then(planned(1)));

  it('an open lane sends no probe while the probe budget is spent, and still holds', () =>
    spec.given(failures(OPEN_AFTER_FAILURES)).when(plan(0, false)).then(planned(0, true)));

  it('the probe budget concerns open lanes only', () => spec.given(failures(1)).when(plan(0, false)).then(planned(4)));

  it('an answer makes the lane whole again, whatever came before', () => {
    spec
      .given([...failures(OPEN_AFTER_FAILURES + 3), answered])
      .when(plan(0))
      .then(planned(8));
    spec
      .given([...failures(OPEN_AFTER_FAILURES - 1), answered, failed()])
      .when(plan(0))
      .then(planned(4));
  });

  it('a planned claim changes nothing by itself', () =>
    spec
      .given([...failures(2), ...planned(2)])
      .when(plan(0))
      .then(planned(2)));
});
