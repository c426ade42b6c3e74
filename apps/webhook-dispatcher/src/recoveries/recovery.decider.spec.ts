import { derivedId } from '#platform/contracts';
import { deciderSpecification } from '#platform/decider/testing';
import { recoveryDecider, type RecoveryCandidate, type RecoveryCommand, type RecoveryEndpoint } from './recovery.decider';
import type { RecoveryEvent } from './recovery.state';

const spec = deciderSpecification(recoveryDecider);
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;
const NOW = new Date('2026-10-14T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();
const enabled: RecoveryEndpoint = { state: 'enabled', events: ['message.status', 'consent.updated', 'webhook.test'] };

const start = (data: Partial<Extract<RecoveryCommand, { type: 'StartRecovery' }>['data']> = {}): RecoveryCommand => ({
  type: 'StartRecovery',
  data: { recoveryId: 'wr_1', endpointId: 'we_1', since: ago(DAY), endpoint: enabled, deliveriesPending: false, creatorGone: false, ...data },
  metadata: { now: NOW },
});
const started: RecoveryEvent = {
  type: 'RecoveryStarted',
  data: {
    recoveryId: 'wr_1',
    endpointId: 'we_1',
    since: ago(DAY),
    until: NOW.toISOString(),
    eventTypes: ['message.status', 'consent.updated'],
    startedAt: NOW.toISOString(),
  },
};
const candidate = (eventId: string, more: Partial<RecoveryCandidate> = {}): RecoveryCandidate => ({
  eventId,
  eventType: 'message.status',
  happenedAt: ago(HOUR),
  delivered: false,
  pending: false,
  lastDeliveryId: null,
  ...more,
});
const LATER = new Date(NOW.getTime() + 1000);
const batch = (candidates: RecoveryCandidate[], endpoint: RecoveryEndpoint | null = enabled): RecoveryCommand => ({
  type: 'CreateRecoveryDeliveries',
  data: { endpoint, candidates },
  metadata: { now: LATER },
});
const deliveryFor = (eventId: string, replayOf: string | null = null, eventType: 'message.status' | 'consent.updated' = 'message.status') => ({
  deliveryId: derivedId('wd_', LATER.getTime(), `recovery:wr_1:${eventId}`),
  eventId,
  eventType,
  replayOf,
});

describe('endpoint recovery decider (ADR 0224)', () => {
  describe('starting', () => {
    it('starts for the types the endpoint subscribes to, from since until now (webhook.test never)', () => spec.given([]).when(start()).then([started]));

    it('reads since as the instant it names', () =>
      spec
        .given([])
        .when(start({ since: '2026-10-14T13:00:00+02:00' }))
        .then([{ ...started, data: { ...started.data, since: '2026-10-14T11:00:00.000Z' } }]));

    it('takes since exactly 7 days ago, and now', () => {
      spec
        .given([])
        .when(start({ since: ago(7 * DAY) }))
        .then([{ ...started, data: { ...started.data, since: ago(7 * DAY) } }]);
      spec
        .given([])
        .when(start({ since: ago(0) }))
        .then([{ ...started, data: { ...started.data, since: ago(0) } }]);
    });

    it('refuses since more than 7 days ago, or in the future, as invalid_request on since', () => {
      for (const since of [ago(7 * DAY + 1), ago(-1), 'yesterday'])
        spec
          .given([])
          .when(start({ since }))
          .thenThrows('invalid_request', (e) => expect(e.details?.map((d) => d.field)).toEqual(['since']));
    });

    it('another app’s or an unknown endpoint is not_found, before anything else', () =>
      spec
        .given([])
        .when(start({ endpoint: null, since: 'yesterday' }))
        .thenThrows('not_found'));

    it('a disabled endpoint is endpoint_disabled; one never verified is subscription_not_verified', () => {
      spec
        .given([])
        .when(start({ endpoint: { ...enabled, state: 'disabled' } }))
        .thenThrows('endpoint_disabled');
      spec
        .given([])
        .when(start({ endpoint: { ...enabled, state: 'pending_verification' } }))
        .thenThrows('subscription_not_verified');
    });

    it('is in progress while the latest recovery creates its deliveries', () =>
      spec
        .given([started])
        .when(start({ recoveryId: 'wr_2' }))
        .thenThrows('recover_in_progress'));

    it('is in progress while a delivery the latest recovery made is pending', () =>
      spec
        .given([started, { type: 'RecoveryFinished', data: { recoveryId: 'wr_1', recovered: 3, at: NOW.toISOString() } }])
        .when(start({ recoveryId: 'wr_2', deliveriesPending: true }))
        .thenThrows('recover_in_progress'));

    it('starts again once the latest one finished and its deliveries ended', () =>
      spec
        .given([started, { type: 'RecoveryFinished', data: { recoveryId: 'wr_1', recovered: 3, at: NOW.toISOString() } }])
        .when(start({ recoveryId: 'wr_2' }))
        .then([{ ...started, data: { ...started.data, recoveryId: 'wr_2' } }]));

    it('starts again when the latest one’s creator is gone and none of its deliveries is pending', () =>
      spec
        .given([started])
        .when(start({ recoveryId: 'wr_2', creatorGone: true }))
        .then([{ ...started, data: { ...started.data, recoveryId: 'wr_2' } }]));
  });

  describe('creating deliveries', () => {
    it('creates one for each event the endpoint missed: never had, or failed (then it follows that delivery)', () =>
      spec
        .given([started])
        .when(batch([candidate('evt_a'), candidate('evt_b', { lastDeliveryId: 'wd_b' }), candidate('evt_c', { eventType: 'consent.updated' })]))
        .then([
          {
            type: 'RecoveryDeliveriesCreated',
            data: { recoveryId: 'wr_1', deliveries: [deliveryFor('evt_a'), deliveryFor('evt_b', 'wd_b'), deliveryFor('evt_c', null, 'consent.updated')] },
          },
        ]));

    it('sends nothing delivered again, nor what is still being retried', () =>
      spec
        .given([started])
        .when(batch([candidate('evt_a', { delivered: true, lastDeliveryId: 'wd_a2' }), candidate('evt_b', { pending: true, lastDeliveryId: 'wd_b' })]))
        .then([]));

    it('leaves out types the endpoint did not subscribe to when it started, and events outside [since, until)', () =>
      spec
        .given([started])
        .when(
          batch([
            candidate('evt_a', { eventType: 'message.received' }),
            candidate('evt_b', { eventType: 'webhook.test' }),
            candidate('evt_c', { happenedAt: ago(DAY + 1) }),
            candidate('evt_d', { happenedAt: NOW.toISOString() }),
            candidate('evt_e', { happenedAt: ago(DAY) }),
          ]),
        )
        .then([{ type: 'RecoveryDeliveriesCreated', data: { recoveryId: 'wr_1', deliveries: [deliveryFor('evt_e')] } }]));

    it('stops when the endpoint is no longer enabled, keeping what it created', () => {
      const created: RecoveryEvent = { type: 'RecoveryDeliveriesCreated', data: { recoveryId: 'wr_1', deliveries: [deliveryFor('evt_a')] } };
      const stopped: RecoveryEvent = { type: 'RecoveryFinished', data: { recoveryId: 'wr_1', recovered: 1, at: LATER.toISOString() } };
      spec
        .given([started, created])
        .when(batch([candidate('evt_b')], { ...enabled, state: 'disabled' }))
        .then([stopped]);
      spec
        .given([started, created])
        .when(batch([candidate('evt_b')], null))
        .then([stopped]);
    });
  });

  describe('finishing', () => {
    it('counts every delivery created', () =>
      spec
        .given([
          started,
          { type: 'RecoveryDeliveriesCreated', data: { recoveryId: 'wr_1', deliveries: [deliveryFor('evt_a'), deliveryFor('evt_b')] } },
          { type: 'RecoveryDeliveriesCreated', data: { recoveryId: 'wr_1', deliveries: [deliveryFor('evt_c')] } },
        ])
        .when({ type: 'FinishRecovery', data: {}, metadata: { now: LATER } })
        .then([{ type: 'RecoveryFinished', data: { recoveryId: 'wr_1', recovered: 3, at: LATER.toISOString() } }]));

    it('a finished recovery finishes once', () =>
      spec
        .given([started, { type: 'RecoveryFinished', data: { recoveryId: 'wr_1', recovered: 0, at: NOW.toISOString() } }])
        .when({ type: 'FinishRecovery', data: {}, metadata: { now: LATER } })
        .then([]));
  });
});
