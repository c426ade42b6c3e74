import type { Pool } from 'pg';
import type { Counter } from 'prom-client';
import type { AttemptReport } from './delivery-attempt';
import { decideDelivery, MAX_HELD_SPREAD, type DeliveryCommand } from './delivery.decider';
import type { DeliveryEvent } from './delivery.state';
import { healthByEndpoint, recordEndpointHealth, type AttemptOutcome, type FailingEndpoint } from './endpoint-health';
import { countOutcomes, type CountedOutcome } from '../delivery-counts/delivery-counts.rule';
import { addCountsStatement } from '../delivery-counts/delivery-counts.sql';

/** Only results of the attempt that holds the delivery count (a stale result after a lease ran out is ignored). */
const RECORD_SQL = `
update webhook_dispatcher.deliveries d
set status = u.status, next_attempt_at = u.next_attempt_at, lease_until = null, last_response_status = u.response_status,
    last_error = u.error, delivered_at = u.delivered_at, failed_at = u.failed_at
from unnest($1::text[], $2::int[], $3::text[], $4::timestamptz[], $5::int[], $6::text[], $7::timestamptz[], $8::timestamptz[])
  as u(delivery_id, attempt, status, next_attempt_at, response_status, error, delivered_at, failed_at)
where d.delivery_id = u.delivery_id and d.status = 'pending' and d.attempts = u.attempt
returning d.delivery_id`;

const ATTEMPTS_SQL = `
insert into webhook_dispatcher.delivery_attempts
  (delivery_id, attempt, started_at, finished_at, outcome, response_status, error, duration_ms, due_at, request_headers, response_excerpt)
select * from unnest($1::text[], $2::int[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::int[], $7::text[], $8::int[], $9::timestamptz[],
  $10::jsonb[], $11::text[])
on conflict do nothing
returning delivery_id, attempt`;

/**
 * Where in [0, MAX_HELD_SPREAD) a held attempt's retry falls: from the delivery and attempt, so
 * that held deliveries of one endpoint, held together, fall due apart, and a repeat is the same.
 */
export function heldSpread(deliveryId: string, attempt: number): number {
  let hash = 0x811c9dc5;
  for (const char of `${deliveryId}:${attempt}`) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
  return ((hash >>> 0) / 2 ** 32) * MAX_HELD_SPREAD;
}

/**
 * Records finished attempts in one transaction, each result decided by the delivery decider: the
 * deliveries' new state, the attempts (with the request headers and response excerpt), the
 * endpoints' health, and what the rows taken in add to the hourly delivery counts (in `slot`, this
 * process's rows: ADR 0219). Returns the endpoints failing now.
 */
export async function recordResults(pool: Pool, attemptsTotal: Counter<'outcome'>, reports: AttemptReport[], slot = 0): Promise<FailingEndpoint[]> {
  const updates = {
    id: [] as string[],
    attempt: [] as number[],
    status: [] as string[],
    next: [] as (Date | null)[],
    response: [] as (number | null)[],
    error: [] as (string | null)[],
    delivered: [] as (Date | null)[],
    failed: [] as (Date | null)[],
  };
  const attempts = {
    id: [] as string[],
    attempt: [] as number[],
    started: [] as Date[],
    finished: [] as Date[],
    outcome: [] as string[],
    response: [] as (number | null)[],
    error: [] as (string | null)[],
    duration: [] as number[],
    due: [] as (Date | null)[],
    headers: [] as (string | null)[],
    excerpt: [] as (string | null)[],
  };
  const outcomes: AttemptOutcome[] = [];
  /** Each decided result, by delivery and attempt, for the counts of what the database took in. */
  const decided: { report: AttemptReport; event: DeliveryEvent }[] = [];
  for (const report of reports) {
    const d = report.delivery;
    const command: DeliveryCommand = report.result
      ? {
          type: 'RecordAttempt',
          data: { attempt: d.attempt, result: report.result, ...(report.result.kind === 'held' ? { spread: heldSpread(d.deliveryId, d.attempt) } : {}) },
          metadata: { now: report.finishedAt },
        }
      : { type: 'AbandonDelivery', data: { reason: report.abandonReason ?? 'abandoned' }, metadata: { now: report.finishedAt } };
    const delivery = { deliveryId: d.deliveryId, eventId: d.eventId, eventType: d.eventType, endpointId: d.endpointId };
    const [event] = decideDelivery(command, { status: 'pending', delivery, attempts: d.attempt, createdAt: d.createdAt, nextAttemptAt: null });
    if (!event) continue;
    decided.push({ report, event });
    pushUpdate(updates, d.deliveryId, d.attempt, event);
    if (!report.result) continue;
    const ok = event.type === 'DeliverySucceeded';
    attemptsTotal.inc({
      outcome: ok ? 'delivered' : report.result.kind === 'response' ? `status_${Math.floor(report.result.status / 100)}xx` : report.result.kind,
    });
    attempts.id.push(d.deliveryId);
    attempts.attempt.push(d.attempt);
    attempts.started.push(report.startedAt);
    attempts.finished.push(report.finishedAt);
    attempts.outcome.push(ok ? 'delivered' : report.result.kind);
    attempts.response.push(report.result.kind === 'response' ? report.result.status : null);
    attempts.error.push(ok ? null : 'error' in event.data ? event.data.error : null);
    attempts.duration.push(report.durationMs);
    attempts.due.push(d.dueAt ?? null);
    // What the log shows of the exchange (ADR 0220): the request's headers and the answer's first 2 KiB.
    attempts.headers.push(report.requestHeaders ? JSON.stringify(report.requestHeaders) : null);
    attempts.excerpt.push(report.responseExcerpt);
    // A held attempt tells nothing new of the endpoint: its lane was open on what the sent ones showed.
    if (report.result.kind !== 'held') outcomes.push({ endpointId: d.endpointId, at: report.finishedAt, ok });
  }
  const health = healthByEndpoint(outcomes);
  const client = await pool.connect();
  let failing: FailingEndpoint[] = [];
  try {
    await client.query('begin');
    let moved = new Set<string>();
    let recorded = new Set<string>();
    if (updates.id.length > 0) {
      const result = await client.query<{ delivery_id: string }>(RECORD_SQL, [
        updates.id,
        updates.attempt,
        updates.status,
        updates.next,
        updates.response,
        updates.error,
        updates.delivered,
        updates.failed,
      ]);
      moved = new Set(result.rows.map((r) => r.delivery_id));
    }
    if (attempts.id.length > 0) {
      const result = await client.query<{ delivery_id: string; attempt: number }>(ATTEMPTS_SQL, [
        attempts.id,
        attempts.attempt,
        attempts.started,
        attempts.finished,
        attempts.outcome,
        attempts.response,
        attempts.error,
        attempts.duration,
        attempts.due,
        attempts.headers,
        attempts.excerpt,
      ]);
      recorded = new Set(result.rows.map((r) => `${r.delivery_id}:${r.attempt}`));
    }
    const counts = addCountsStatement(countOutcomes(decided.map(({ report, event }) => countedOutcome(report, event, moved, recorded))), slot, '$n');
    if (counts) await client.query(counts.sql, counts.params);
    if (health.size > 0) {
      failing = await recordEndpointHealth(client, health);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
  return failing;
}

/** What a decided result did, as far as the rows moved (`moved`: deliveries) and were recorded (`recorded`: `<delivery>:<attempt>`). */
function countedOutcome(report: AttemptReport, event: DeliveryEvent, moved: Set<string>, recorded: Set<string>): CountedOutcome {
  const d = report.delivery;
  const sent = report.result !== null && report.result.kind !== 'held' && recorded.has(`${d.deliveryId}:${d.attempt}`);
  return {
    appId: d.appId,
    endpointId: d.endpointId,
    event: moved.has(d.deliveryId) ? event : null,
    request: sent
      ? {
          finishedAt: report.finishedAt.toISOString(),
          durationMs: report.durationMs,
          error: event.type === 'DeliverySucceeded' ? null : 'error' in event.data ? event.data.error : null,
        }
      : null,
  };
}

function pushUpdate(
  u: {
    id: string[];
    attempt: number[];
    status: string[];
    next: (Date | null)[];
    response: (number | null)[];
    error: (string | null)[];
    delivered: (Date | null)[];
    failed: (Date | null)[];
  },
  deliveryId: string,
  attempt: number,
  event: DeliveryEvent,
): void {
  u.id.push(deliveryId);
  u.attempt.push(attempt);
  switch (event.type) {
    case 'DeliverySucceeded':
      u.status.push('delivered');
      u.next.push(null);
      u.response.push(event.data.responseStatus);
      u.error.push(null);
      u.delivered.push(new Date(event.data.at));
      u.failed.push(null);
      return;
    case 'DeliveryAttemptFailed':
      u.status.push('pending');
      u.next.push(new Date(event.data.nextAttemptAt));
      u.response.push(event.data.responseStatus);
      u.error.push(event.data.error);
      u.delivered.push(null);
      u.failed.push(null);
      return;
    case 'DeliveryFailed':
      u.status.push('failed');
      u.next.push(null);
      u.response.push(event.data.responseStatus);
      u.error.push(event.data.error);
      u.delivered.push(null);
      u.failed.push(new Date(event.data.at));
      return;
    case 'DeliveryCreated':
      throw new Error('a recorded attempt never creates a delivery');
  }
}
