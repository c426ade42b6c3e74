import { deciderSpecification } from '#platform/decider/testing';
import { deliveryDecider, isRetryableStatus, retryDelayMs, type AttemptResult, type DeliveryCommand } from './delivery.decider';
import type { DeliveryEvent } from './delivery.state';

const spec = deciderSpecification(deliveryDecider);
const created: DeliveryEvent = {
  type: 'DeliveryCreated',
  data: { deliveryId: 'wd_1', eventId: 'evt_1', eventType: 'message.status', endpointId: 'we_1', createdAt: '2026-01-01T00:00:00.000Z', replayOf: null },
};
const at = (offsetMs: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + offsetMs).toISOString();
const attempt = (n: number, offsetMs: number, result: AttemptResult): DeliveryCommand => ({
  type: 'RecordAttempt',
  data: { attempt: n, result },
  metadata: { now: new Date(at(offsetMs)) },
});
const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

describe('Webhook delivery decider', () => {
  it('a 2xx answer delivers', () =>
    spec
      .given([created])
      .when(attempt(1, 50, { kind: 'response', status: 204 }))
      .then([{ type: 'DeliverySucceeded', data: { attempt: 1, at: at(50), responseStatus: 204 } }]));

  it.each([500, 502, 503, 408, 429, 302])('%s is retried 10 s later', (status) =>
    spec
      .given([created])
      .when(attempt(1, 100, { kind: 'response', status }))
      .then([
        { type: 'DeliveryAttemptFailed', data: { attempt: 1, at: at(100), responseStatus: status, error: `answered ${status}`, nextAttemptAt: at(10_100) } },
      ]),
  );

  it.each([400, 401, 403, 404, 410, 422])('%s fails at once, without retries', (status) =>
    spec
      .given([created])
      .when(attempt(1, 100, { kind: 'response', status }))
      .then([{ type: 'DeliveryFailed', data: { attempt: 1, at: at(100), responseStatus: status, error: `answered ${status}` } }]),
  );

  it('a timeout is retried', () =>
    spec
      .given([created])
      .when(attempt(1, 10_000, { kind: 'timeout' }))
      .then([
        {
          type: 'DeliveryAttemptFailed',
          data: { attempt: 1, at: at(10_000), responseStatus: null, error: 'no answer within 10 s', nextAttemptAt: at(20_000) },
        },
      ]));

  it('a network error is retried, with its message', () =>
    spec
      .given([created])
      .when(attempt(2, 60_000, { kind: 'network', error: 'connect ECONNREFUSED' }))
      .then([
        { type: 'DeliveryAttemptFailed', data: { attempt: 2, at: at(60_000), responseStatus: null, error: 'connect ECONNREFUSED', nextAttemptAt: at(80_000) } },
      ]));

  it('a URL refused at delivery (DNS now private) is retried like a network error: no request was made', () =>
    spec
      .given([created])
      .when(attempt(1, 0, { kind: 'refused', error: 'webhook_url_blocked_address: resolves to 127.0.0.1' }))
      .then([
        {
          type: 'DeliveryAttemptFailed',
          data: { attempt: 1, at: at(0), responseStatus: null, error: 'webhook_url_blocked_address: resolves to 127.0.0.1', nextAttemptAt: at(10_000) },
        },
      ]));

  it('an attempt held by its failing endpoint is retried on the schedule, spread by its share', () => {
    const held = { kind: 'held', error: 'not sent: the endpoint is failing (answered 500)' } as const;
    spec
      .given([created])
      .when({ type: 'RecordAttempt', data: { attempt: 3, result: held, spread: 0.05 }, metadata: { now: new Date(at(70_000)) } })
      .then([{ type: 'DeliveryAttemptFailed', data: { attempt: 3, at: at(70_000), responseStatus: null, error: held.error, nextAttemptAt: at(112_000) } }]);
    // The spread is bounded, and a sent attempt's retry is never spread.
    spec
      .given([created])
      .when({ type: 'RecordAttempt', data: { attempt: 1, result: held, spread: 5 }, metadata: { now: new Date(at(0)) } })
      .then([{ type: 'DeliveryAttemptFailed', data: { attempt: 1, at: at(0), responseStatus: null, error: held.error, nextAttemptAt: at(11_000) } }]);
    spec
      .given([created])
      .when({ type: 'RecordAttempt', data: { attempt: 1, result: { kind: 'response', status: 500 }, spread: 0.1 }, metadata: { now: new Date(at(0)) } })
      .then([{ type: 'DeliveryAttemptFailed', data: { attempt: 1, at: at(0), responseStatus: 500, error: 'answered 500', nextAttemptAt: at(10_000) } }]);
  });

  it('a held attempt 24 hours after creation fails the delivery with the reason it was held', () =>
    spec
      .given([created])
      .when({
        type: 'RecordAttempt',
        data: { attempt: 22, result: { kind: 'held', error: 'not sent: the endpoint is failing (no answer within 10 s)' }, spread: 0.02 },
        metadata: { now: new Date(at(24 * HOUR)) },
      })
      .then([
        {
          type: 'DeliveryFailed',
          data: { attempt: 22, at: at(24 * HOUR), responseStatus: null, error: 'not sent: the endpoint is failing (no answer within 10 s)' },
        },
      ]));

  it('the last retry lands on the 24-hour mark', () =>
    spec
      .given([created])
      .when(attempt(20, 23.9 * HOUR, { kind: 'response', status: 503 }))
      .then([
        { type: 'DeliveryAttemptFailed', data: { attempt: 20, at: at(23.9 * HOUR), responseStatus: 503, error: 'answered 503', nextAttemptAt: at(24 * HOUR) } },
      ]));

  it('a failure 24 hours after creation fails the delivery', () =>
    spec
      .given([created])
      .when(attempt(21, 24 * HOUR, { kind: 'response', status: 503 }))
      .then([{ type: 'DeliveryFailed', data: { attempt: 21, at: at(24 * HOUR), responseStatus: 503, error: 'answered 503' } }]));

  it('a late result for a delivery already delivered changes nothing', () =>
    spec
      .given([created, { type: 'DeliverySucceeded', data: { attempt: 1, at: at(10), responseStatus: 200 } }])
      .when(attempt(1, 20, { kind: 'timeout' }))
      .then([]));

  it('an endpoint that stopped taking deliveries abandons the delivery', () =>
    spec
      .given([created])
      .when({ type: 'AbandonDelivery', data: { reason: 'the endpoint was disabled' }, metadata: { now: new Date(at(5)) } })
      .then([{ type: 'DeliveryFailed', data: { attempt: null, at: at(5), responseStatus: null, error: 'the endpoint was disabled' } }]));

  it('backoff: about 10 s, doubling, capped at 1 hour', () => {
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(retryDelayMs(9)).toBe(2_560_000);
    expect(retryDelayMs(10)).toBe(HOUR);
    expect(retryDelayMs(40)).toBe(HOUR);
  });

  it('retries on 408, 429, 5xx and unfollowed redirects only', () => {
    expect([408, 429, 500, 599, 301, 307].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 409, 410, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  describe('replay (D24): a new delivery of the same event to the same endpoint', () => {
    const delivered: DeliveryEvent = { type: 'DeliverySucceeded', data: { attempt: 1, at: at(10), responseStatus: 200 } };
    const failed: DeliveryEvent = { type: 'DeliveryFailed', data: { attempt: 1, at: at(10), responseStatus: 400, error: 'answered 400' } };
    /** The event was stored with the delivery's creation; `payloadKept` false once the retention job dropped it. */
    const replay = (offsetMs: number, over: Partial<Extract<DeliveryCommand, { type: 'ReplayDelivery' }>['data']> = {}): DeliveryCommand => ({
      type: 'ReplayDelivery',
      data: { replayId: 'wd_2', event: { createdAt: at(0), payloadKept: true }, endpointState: 'enabled', ...over },
      metadata: { now: new Date(at(offsetMs)) },
    });
    const replayed = (offsetMs: number): DeliveryEvent => ({
      type: 'DeliveryCreated',
      data: { deliveryId: 'wd_2', eventId: 'evt_1', eventType: 'message.status', endpointId: 'we_1', createdAt: at(offsetMs), replayOf: 'wd_1' },
    });

    it('a delivered delivery: a new delivery with a new id, of the same event id (so the same stored payload bytes), to the same endpoint', () =>
      spec
        .given([created, delivered])
        .when(replay(HOUR))
        .then([replayed(HOUR)]));
    it('a failed delivery too', () =>
      spec
        .given([created, failed])
        .when(replay(2 * DAY))
        .then([replayed(2 * DAY)]));
    it('a replay can be replayed: the new delivery is of the same event', () =>
      spec
        .given([replayed(HOUR), delivered])
        .when({ ...replay(2 * HOUR), data: { ...replay(2 * HOUR).data, replayId: 'wd_3' } } as DeliveryCommand)
        .then([
          {
            type: 'DeliveryCreated',
            data: { deliveryId: 'wd_3', eventId: 'evt_1', eventType: 'message.status', endpointId: 'we_1', createdAt: at(2 * HOUR), replayOf: 'wd_2' },
          },
        ]));
    it('a pending delivery → delivery_in_progress', () => spec.given([created]).when(replay(HOUR)).thenThrows('delivery_in_progress'));
    it('a pending delivery retrying → delivery_in_progress', () =>
      spec
        .given([
          created,
          { type: 'DeliveryAttemptFailed', data: { attempt: 1, at: at(0), responseStatus: 503, error: 'answered 503', nextAttemptAt: at(10_000) } },
        ])
        .when(replay(HOUR))
        .thenThrows('delivery_in_progress'));
    it('exactly 7 days after the event the payload can still be replayed', () =>
      spec
        .given([created, delivered])
        .when(replay(7 * DAY))
        .then([replayed(7 * DAY)]));
    it('a payload older than 7 days → payload_expired', () =>
      spec
        .given([created, delivered])
        .when(replay(7 * DAY + 1))
        .thenThrows('payload_expired'));
    it('a payload the retention job dropped, or an event no longer stored → payload_expired', () => {
      spec
        .given([created, delivered])
        .when(replay(HOUR, { event: { createdAt: at(0), payloadKept: false } }))
        .thenThrows('payload_expired');
      spec
        .given([created, delivered])
        .when(replay(HOUR, { event: null }))
        .thenThrows('payload_expired');
    });
    it('in progress is answered before expired', () =>
      spec
        .given([created])
        .when(replay(8 * DAY, { event: null }))
        .thenThrows('delivery_in_progress'));
    it('an endpoint deleted since → not_found; not enabled → subscription_not_verified', () => {
      spec
        .given([created, delivered])
        .when(replay(HOUR, { endpointState: null }))
        .thenThrows('not_found', (error) => expect(error.message).toBe('The endpoint of this delivery was deleted.'));
      spec
        .given([created, delivered])
        .when(replay(HOUR, { endpointState: 'disabled' }))
        .thenThrows('subscription_not_verified');
      spec
        .given([created, delivered])
        .when(replay(HOUR, { endpointState: 'pending_verification' }))
        .thenThrows('subscription_not_verified');
    });
    it('an expired payload is answered before the endpoint', () =>
      spec
        .given([created, delivered])
        .when(replay(8 * DAY, { endpointState: null }))
        .thenThrows('payload_expired'));
    it('no such delivery → not_found', () =>
      spec
        .given([])
        .when(replay(HOUR))
        .thenThrows('not_found', (error) => expect(error.message).toBe('No such webhook delivery.')));
  });
});
