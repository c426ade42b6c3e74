import type { DeliveryDayCount, EndpointHealthSummary } from '#platform/contracts';
import type { DeliveryEvent } from '../deliveries/delivery.state';

/**
 * How the dispatcher counts what its deliveries did, per endpoint and UTC hour (the console's
 * overview chart and endpoint health; docs/adr/0219-delivery-counts-per-endpoint-hour.md). The
 * live path (delivery-results.ts, endpoint.projection.ts) and the rebuild from the delivery records
 * (delivery-counts.rebuild.ts) both count by these rules.
 */

/**
 * Rows per endpoint and hour: slot 0 for rebuilds and endpoint changes, 1 to 15 one per dispatcher
 * process, chosen at its start, so that replicas recording results at once add to different rows.
 */
export const COUNT_SLOTS = 16;

/**
 * Upper bounds (ms, inclusive) of the request duration buckets; a last bucket holds what is slower
 * than the last bound (up to the 10-second answer limit and a little beyond).
 */
export const DURATION_BOUNDS_MS = [25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000] as const;

/** The bucket of a request that took `durationMs`: the first bound at or above it, else the last bucket. */
export function durationBucket(durationMs: number): number {
  return DURATION_BOUNDS_MS.filter((bound) => bound < durationMs).length;
}

/** The UTC hour an instant falls in, as an ISO time. */
export function hourOf(at: string | Date): string {
  const ms = new Date(at).getTime();
  return new Date(ms - (((ms % 3_600_000) + 3_600_000) % 3_600_000)).toISOString();
}

/** What one recorded result did, as far as the database took it. */
export interface CountedOutcome {
  appId: string;
  endpointId: string;
  /** The decided event, when the delivery's row moved by it (a stale result moves nothing). */
  event: DeliveryEvent | null;
  /** The request this result sent, when its attempt was recorded (held attempts and abandonments send none). */
  request: { finishedAt: string; durationMs: number; error: string | null } | null;
}

/** One endpoint's counts in one UTC hour (a row of `delivery_hourly_counts`, or what to add to it). */
export interface HourCounts {
  appId: string;
  endpointId: string;
  /** ISO time of the hour's start. */
  hour: string;
  delivered: number;
  deliveredFirstAttempt: number;
  failed: number;
  attempts: number;
  /** Requests per duration bucket: DURATION_BOUNDS_MS.length + 1 numbers. */
  durations: number[];
  lastError: { at: string; error: string } | null;
}

const emptyHour = (appId: string, endpointId: string, hour: string): HourCounts => ({
  appId,
  endpointId,
  hour,
  delivered: 0,
  deliveredFirstAttempt: 0,
  failed: 0,
  attempts: 0,
  durations: DURATION_BOUNDS_MS.map(() => 0).concat(0),
  lastError: null,
});

/** The later of two last errors (the second on a tie: it was recorded later). */
function laterError(a: HourCounts['lastError'], b: HourCounts['lastError']): HourCounts['lastError'] {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(b.at) >= Date.parse(a.at) ? b : a;
}

/**
 * What outcomes add, per endpoint and hour, sorted by endpoint then hour (the order the upsert takes
 * its row locks in, so two writers never wait on each other in a circle). A delivery counts once when
 * it ends, in the hour it ended: delivered (and delivered at the first attempt when attempt 1 did
 * it) or failed (its last attempt, its deadline, or its endpoint stopped). A request counts in the
 * hour it finished, in its duration's bucket, and its error (if it failed) is a candidate last error.
 */
export function countOutcomes(outcomes: CountedOutcome[]): HourCounts[] {
  const byKey = new Map<string, HourCounts>();
  const at = (appId: string, endpointId: string, hour: string): HourCounts => {
    const key = `${endpointId}\u0000${hour}`;
    let counts = byKey.get(key);
    if (!counts) byKey.set(key, (counts = emptyHour(appId, endpointId, hour)));
    return counts;
  };
  for (const o of outcomes) {
    const e = o.event;
    if (e?.type === 'DeliverySucceeded') {
      const c = at(o.appId, o.endpointId, hourOf(e.data.at));
      c.delivered++;
      if (e.data.attempt === 1) c.deliveredFirstAttempt++;
    } else if (e?.type === 'DeliveryFailed') {
      at(o.appId, o.endpointId, hourOf(e.data.at)).failed++;
    }
    if (o.request) {
      const c = at(o.appId, o.endpointId, hourOf(o.request.finishedAt));
      c.attempts++;
      c.durations[durationBucket(o.request.durationMs)]++;
      if (o.request.error !== null) c.lastError = laterError(c.lastError, { at: new Date(o.request.finishedAt).toISOString(), error: o.request.error });
    }
  }
  return [...byKey.values()].sort((a, b) => (a.endpointId === b.endpointId ? a.hour.localeCompare(b.hour) : a.endpointId < b.endpointId ? -1 : 1));
}

/** UTC days of hour rows, summed per day, oldest first (the overview's deliveries chart). */
export function countsPerDay(rows: Pick<HourCounts, 'hour' | 'delivered' | 'deliveredFirstAttempt' | 'failed'>[]): DeliveryDayCount[] {
  const days = new Map<string, DeliveryDayCount>();
  for (const r of rows) {
    const day = new Date(r.hour).toISOString().slice(0, 10);
    const d = days.get(day) ?? { day, delivered: 0, deliveredFirstAttempt: 0, failed: 0 };
    d.delivered += r.delivered;
    d.deliveredFirstAttempt += r.deliveredFirstAttempt;
    d.failed += r.failed;
    days.set(day, d);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

/**
 * The 95th percentile of bucketed durations, as the bound of the bucket holding it: the smallest
 * bucket whose running total reaches 95 % of the requests (rounded up). null when there is none.
 */
export function p95Bound(durations: number[]): { boundMs: number | null; beyondLastBound: boolean } {
  const total = durations.reduce((n, d) => n + d, 0);
  if (total === 0) return { boundMs: null, beyondLastBound: false };
  const rank = Math.ceil(total * 0.95);
  let running = 0;
  for (let i = 0; i < durations.length; i++) {
    running += durations[i];
    if (running >= rank)
      return i < DURATION_BOUNDS_MS.length ? { boundMs: DURATION_BOUNDS_MS[i], beyondLastBound: false } : { boundMs: null, beyondLastBound: true };
  }
  return { boundMs: null, beyondLastBound: true };
}

/** Each endpoint's health from its hour rows (any slots) of the window, ordered by endpoint id. */
export function endpointHealth(rows: HourCounts[]): EndpointHealthSummary[] {
  const byEndpoint = new Map<string, HourCounts>();
  for (const r of rows) {
    const sum = byEndpoint.get(r.endpointId) ?? emptyHour(r.appId, r.endpointId, r.hour);
    sum.delivered += r.delivered;
    sum.deliveredFirstAttempt += r.deliveredFirstAttempt;
    sum.failed += r.failed;
    sum.attempts += r.attempts;
    r.durations.forEach((n, i) => (sum.durations[i] += n));
    sum.lastError = laterError(sum.lastError, r.lastError);
    byEndpoint.set(r.endpointId, sum);
  }
  return [...byEndpoint.values()]
    .sort((a, b) => (a.endpointId < b.endpointId ? -1 : a.endpointId > b.endpointId ? 1 : 0))
    .map((s) => {
      const p95 = p95Bound(s.durations);
      return {
        endpointId: s.endpointId,
        deliveries: s.delivered + s.failed,
        delivered: s.delivered,
        attempts: s.attempts,
        p95Ms: p95.boundMs,
        p95BeyondLastBound: p95.beyondLastBound,
        lastError: s.lastError,
      };
    });
}
