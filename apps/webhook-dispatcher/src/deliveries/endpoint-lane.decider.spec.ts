import { deciderSpecification } from '#platform/decider/testing';
import { endpointLaneDecider, OPEN_AFTER_FAILURES, type EndpointLaneCommand } from './endpoint-lane.decider';
import type { EndpointLaneEvent } from './endpoint-lane.state';

const spec = deciderSpecification(endpointLaneDecider);
const now = new Date('2026-01-01T00:00:00.000Z');
const plan = (inFlight: number, probesAvailable = true): EndpointLaneCommand => ({
  type: 'PlanClaim',
  data: { inFlight, maxInFlight: 8, probesAvailable },
  metadata: { now },
});
const failed = (error = 'answered 500'): EndpointLaneEvent => ({ type: 'LaneAttemptFailed', data: { error } });
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
