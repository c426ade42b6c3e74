import type { PoolClient } from 'pg';
import { handleCommand } from '#platform/event-store';
import { log, type ServiceRuntime } from '#platform/service-kit';
import { endpointDecider, failingLongEnoughToDisable } from '../endpoints/endpoint.decider';
import { projectEndpointEvents } from '../endpoints/endpoint.projection';
import type { AttemptReport } from './delivery-attempt';
import { describeAttempt } from './delivery.decider';

/** D25: since when each endpoint has been failing, from its deliveries' outcomes; those failing too long are disabled (`last_success_at`: the success that last ended a failure). */

/**
 * Endpoints with a failure in the batch are upserted; endpoints whose batch ended in success are
 * updated only if they were failing. A healthy endpoint's successes write nothing: every replica's
 * batches to one busy endpoint would otherwise queue on its row, each holding the lock to commit.
 */
const HEALTH_SQL = `
with failed as (
  insert into webhook_dispatcher.endpoint_health as h (endpoint_id, failing_since, last_success_at)
  select * from unnest($1::text[], $2::timestamptz[], $3::timestamptz[])
  on conflict (endpoint_id) do update set
    failing_since = case when excluded.last_success_at is not null then excluded.failing_since else coalesce(h.failing_since, excluded.failing_since) end,
    last_success_at = coalesce(excluded.last_success_at, h.last_success_at)
  returning endpoint_id, failing_since
), recovered as (
  update webhook_dispatcher.endpoint_health h set failing_since = null, last_success_at = r.last_success_at
    from unnest($4::text[], $5::timestamptz[]) as r(endpoint_id, last_success_at)
   where h.endpoint_id = r.endpoint_id and h.failing_since is not null
)
select endpoint_id, failing_since from failed`;

/** An attempt's outcome, as endpoint health counts it. */
export interface AttemptOutcome {
  endpointId: string;
  at: Date;
  ok: boolean;
}

/** An endpoint's last success, and the first failure after it. */
export interface EndpointHealth {
  lastSuccess: Date | null;
  firstFailureAfter: Date | null;
}

/** An endpoint whose deliveries have all failed since `failing_since`. */
export interface FailingEndpoint {
  endpoint_id: string;
  failing_since: Date;
}

/** Per endpoint, in time order: the last success, and the first failure after it (D25's "failing since"). */
export function healthByEndpoint(outcomes: AttemptOutcome[]): Map<string, EndpointHealth> {
  const health = new Map<string, EndpointHealth>();
  for (const { endpointId, at, ok } of outcomes.sort((a, b) => a.at.getTime() - b.at.getTime())) {
    const h = health.get(endpointId) ?? { lastSuccess: null, firstFailureAfter: null };
    health.set(endpointId, ok ? { lastSuccess: at, firstFailureAfter: null } : { ...h, firstFailureAfter: h.firstFailureAfter ?? at });
  }
  return health;
}

/** Records the endpoints' health in the transaction of the results it comes from; returns the endpoints failing now. */
export async function recordEndpointHealth(client: PoolClient, health: Map<string, EndpointHealth>): Promise<FailingEndpoint[]> {
  const failed = [...health].filter(([, h]) => h.firstFailureAfter !== null);
  const succeeded = [...health].filter(([, h]) => h.firstFailureAfter === null);
  const result = await client.query<{ endpoint_id: string; failing_since: Date | null }>(HEALTH_SQL, [
    failed.map(([id]) => id),
    failed.map(([, h]) => h.firstFailureAfter),
    failed.map(([, h]) => h.lastSuccess),
    succeeded.map(([id]) => id),
    succeeded.map(([, h]) => h.lastSuccess),
  ]);
  return result.rows.filter((row): row is FailingEndpoint => row.failing_since !== null);
}

/** D25: an endpoint whose deliveries all failed for 3 days is disabled (the decider judges the 3 days). */
export async function disableLongFailing(runtime: ServiceRuntime, failing: FailingEndpoint[], reports: AttemptReport[]): Promise<void> {
  const now = runtime.clock.now();
  for (const row of failing) {
    // The decider's own rule, asked first so endpoints not yet due cost no transaction.
    if (!failingLongEnoughToDisable(new Date(row.failing_since), now)) continue;
    const own = reports.filter((r) => r.delivery.endpointId === row.endpoint_id);
    const appId = own[0]?.delivery.appId ?? null;
    const last = own
      .filter((r) => r.result !== null)
      .sort((a, b) => a.finishedAt.getTime() - b.finishedAt.getTime())
      .pop();
    const lastError = last?.result ? describeAttempt(last.result).error : null;
    try {
      await handleCommand({
        em: runtime.em(),
        eventStore: runtime.eventStore,
        decider: endpointDecider,
        streamId: `endpoint-${row.endpoint_id}`,
        command: { type: 'DisableFailingEndpoint', data: { failingSince: new Date(row.failing_since).toISOString(), lastError }, metadata: { now } },
        meta: { now, appId, correlationId: null, causationId: null },
        project: (tx, stored) => projectEndpointEvents(tx, stored),
      });
    } catch (error) {
      log('error', 'disabling a failing endpoint failed', { endpointId: row.endpoint_id, error: String(error) });
    }
  }
}
