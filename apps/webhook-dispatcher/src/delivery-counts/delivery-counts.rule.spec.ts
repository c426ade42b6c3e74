import { countOutcomes, countsPerDay, durationBucket, endpointHealth, hourOf, p95Bound, type CountedOutcome } from './delivery-counts.rule';

const app = 'app_1';
const succeeded = (attempt: number, at: string) => ({ type: 'DeliverySucceeded', data: { attempt, at, responseStatus: 200 } }) as const;
const failed = (attempt: number | null, at: string, error = 'answered 500') =>
  ({ type: 'DeliveryFailed', data: { attempt, at, responseStatus: 500, error } }) as const;
const retried = (attempt: number, at: string, error: string) =>
  ({ type: 'DeliveryAttemptFailed', data: { attempt, at, responseStatus: 503, error, nextAttemptAt: at } }) as const;
const request = (finishedAt: string, durationMs: number, error: string | null = null) => ({ finishedAt, durationMs, error });

describe('delivery counts (per endpoint and UTC hour)', () => {
  it('counts a delivery once, when it ends, in the hour it ended; first attempts apart', () => {
    // Given results of three deliveries to one endpoint
    const outcomes: CountedOutcome[] = [
      { appId: app, endpointId: 'we_a', event: succeeded(1, '2026-12-05T10:15:00.000Z'), request: request('2026-12-05T10:15:00.000Z', 40) },
      {
        appId: app,
        endpointId: 'we_a',
        event: retried(1, '2026-12-05T10:20:00.000Z', 'answered 503'),
        request: request('2026-12-05T10:20:00.000Z', 300, 'answered 503'),
      },
      { appId: app, endpointId: 'we_a', event: succeeded(2, '2026-12-05T11:00:00.000Z'), request: request('2026-12-05T11:00:00.000Z', 20) },
      { appId: app, endpointId: 'we_a', event: failed(null, '2026-12-05T11:59:59.999Z', 'the endpoint was deleted'), request: null },
    ];
    // When they are counted
    const counts = countOutcomes(outcomes);
    // Then each hour holds what ended or was sent in it
    expect(counts.map((c) => [c.hour, c.delivered, c.deliveredFirstAttempt, c.failed, c.attempts])).toEqual([
      ['2026-12-05T10:00:00.000Z', 1, 1, 0, 2],
      ['2026-12-05T11:00:00.000Z', 1, 0, 1, 1],
    ]);
    expect(counts[0].durations).toEqual([0, 1, 0, 0, 1, 0, 0, 0, 0, 0]);
    expect(counts[0].lastError).toEqual({ at: '2026-12-05T10:20:00.000Z', error: 'answered 503' });
    // An abandonment sends no request: it is no error of the endpoint's
    expect(counts[1].lastError).toBeNull();
  });

  it('counts nothing the database did not take in (a stale result, an attempt recorded already)', () => {
    expect(countOutcomes([{ appId: app, endpointId: 'we_a', event: null, request: null }])).toEqual([]);
  });

  it('sorts what it adds by endpoint, then hour (the order row locks are taken in)', () => {
    const at = (endpointId: string, iso: string): CountedOutcome => ({ appId: app, endpointId, event: failed(1, iso), request: null });
    const counts = countOutcomes([at('we_b', '2026-12-05T09:00:00Z'), at('we_a', '2026-12-05T10:00:00Z'), at('we_a', '2026-12-05T08:00:00Z')]);
    expect(counts.map((c) => `${c.endpointId} ${c.hour}`)).toEqual([
      'we_a 2026-12-05T08:00:00.000Z',
      'we_a 2026-12-05T10:00:00.000Z',
      'we_b 2026-12-05T09:00:00.000Z',
    ]);
  });

  it('puts a duration in the first bucket whose bound holds it, and beyond the last bound after 10 s', () => {
    expect([0, 25, 26, 10_000, 10_001].map(durationBucket)).toEqual([0, 0, 1, 8, 9]);
    expect(hourOf('2026-12-05T23:59:59.999Z')).toBe('2026-12-05T23:00:00.000Z');
  });

  it('reads the 95th percentile as the bound of the bucket that holds it', () => {
    expect(p95Bound([0, 0, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual({ boundMs: null, beyondLastBound: false });
    // 19 fast requests and one slow: the 95th of 20 is the 19th, still fast
    expect(p95Bound([19, 0, 0, 0, 0, 0, 1, 0, 0, 0])).toEqual({ boundMs: 25, beyondLastBound: false });
    expect(p95Bound([18, 0, 0, 0, 0, 0, 2, 0, 0, 0])).toEqual({ boundMs: 2500, beyondLastBound: false });
    expect(p95Bound([0, 0, 0, 0, 0, 0, 0, 0, 0, 3])).toEqual({ boundMs: null, beyondLastBound: true });
  });

  it('sums hours (of every slot) into endpoint health and UTC days', () => {
    const hour = (
      endpointId: string,
      iso: string,
      delivered: number,
      failedN: number,
      durations: number[],
      lastError: { at: string; error: string } | null = null,
    ) => ({
      appId: app,
      endpointId,
      hour: iso,
      delivered,
      deliveredFirstAttempt: delivered,
      failed: failedN,
      attempts: durations.reduce((n, d) => n + d, 0),
      durations,
      lastError,
    });
    const rows = [
      hour('we_a', '2026-12-05T23:00:00.000Z', 3, 1, [4, 0, 0, 0, 0, 0, 0, 0, 0, 0], { at: '2026-12-05T23:10:00.000Z', error: 'answered 500' }),
      hour('we_a', '2026-12-05T23:00:00.000Z', 1, 0, [0, 0, 0, 1, 0, 0, 0, 0, 0, 0], { at: '2026-12-05T23:05:00.000Z', error: 'older' }),
      hour('we_a', '2026-12-06T00:00:00.000Z', 2, 0, [2, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
    ];
    expect(endpointHealth(rows)).toEqual([
      {
        endpointId: 'we_a',
        deliveries: 7,
        delivered: 6,
        attempts: 7,
        p95Ms: 250,
        p95BeyondLastBound: false,
        lastError: { at: '2026-12-05T23:10:00.000Z', error: 'answered 500' },
      },
    ]);
    expect(countsPerDay(rows)).toEqual([
      { day: '2026-12-05', delivered: 4, deliveredFirstAttempt: 4, failed: 1 },
      { day: '2026-12-06', delivered: 2, deliveredFirstAttempt: 2, failed: 0 },
    ]);
  });
});
