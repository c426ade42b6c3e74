import type { EventRef } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { quoteIdent } from '#platform/event-store';
import type { ServiceRuntime } from './service-runtime';

/**
 * Resolves true once this service's consumer `<service>.<consumer>` has applied every one of
 * `events` it handles (its inbox holds them; types it skips are not waited for), false after
 * timeoutMs. Any replica can answer: it reads the inbox, and is woken early when the applying
 * consumer runs in this process.
 */
export async function waitForApplied(runtime: ServiceRuntime, consumer: string, events: EventRef[], timeoutMs: number): Promise<boolean> {
  // Its inbox would never hold them: waiting would only ever time out.
  if (!runtime.keepsInbox(consumer)) throw new Error(`${runtime.config.serviceName}.${consumer} keeps no inbox: nothing can wait for what it applied`);
  const eventIds = events.filter((e) => runtime.handles(consumer, e.type)).map((e) => e.eventId);
  if (eventIds.length === 0) return true;
  const name = `${runtime.config.serviceName}.${consumer}`;
  const pending = new Set(eventIds);
  const deadline = Date.now() + timeoutMs;
  const table = `${quoteIdent(runtime.config.schema)}.inbox`;
  for (;;) {
    const wake = runtime.waiter.waitFor((event) => pending.has(event.eventId), Math.min(100, Math.max(0, deadline - Date.now())));
    const ids = [...pending];
    const rows: { event_id: string }[] = await runtime
      .em()
      .execute(`select event_id from ${table} where consumer = ? and event_id in (${ids.map(() => '?').join(', ')})`, [name, ...ids]);
    for (const row of rows) pending.delete(row.event_id);
    if (pending.size === 0) {
      wake.cancel();
      return true;
    }
    if (Date.now() >= deadline) {
      wake.cancel();
      return false;
    }
    await wake.promise;
  }
}

/**
 * What `events.awaitApplied` answers and what a call that waits for events before its work does:
 * returns once `consumer` has applied `events`, waiting at most a second under the RPC timeout (at
 * least a second), then refuses with 500 internal_error, so the caller gets an answer, not a timeout.
 */
export async function requireApplied(runtime: ServiceRuntime, consumer: string, events: EventRef[]): Promise<void> {
  if (!(await waitForApplied(runtime, consumer, events, Math.max(1000, runtime.config.rpcTimeoutMs - 1000)))) {
    throw new DomainError('internal_error', `The change was made but ${runtime.config.serviceName} has not applied it yet; read again shortly.`);
  }
}

/** The well-formed event references of a list that crossed the network (anything else is left out). */
export function eventRefsFrom(value: unknown): EventRef[] {
  if (!Array.isArray(value)) return [];
  return value.filter((e): e is EventRef => typeof e?.eventId === 'string' && typeof e?.type === 'string').map((e) => ({ eventId: e.eventId, type: e.type }));
}
