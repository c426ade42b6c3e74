import { deciderSpecification } from '#platform/decider/testing';
import { deliveryDecider, isRetryableStatus, retryDelayMs, type AttemptResult, type DeliveryCommand } from './delivery.decider';
import type { DeliveryEvent } from './delivery.state';

const spec = deciderSpecification(deliveryDecider);
const created: DeliveryEvent = { type: 'DeliveryCreated', data: { createdAt: '2026-01-01T00:00:00.000Z' } };
const at = (offsetMs: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + offsetMs).toISOString();
const attempt = (n: number, offsetMs: number, result: AttemptResult): DeliveryCommand => ({
  type: 'RecordAttempt',
  data: { attempt: n, result },
  metadata: { now: new Date(at(offsetMs)) },
});
const HOUR = 3600 * 1000;

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
});
