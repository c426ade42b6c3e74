import type { AppEventType } from '#platform/contracts';
import { pgTextArray } from '#platform/event-store';
import type { Statement } from '#platform/postgres';
import { mediaReadyCondition } from '../deliveries/delivery-claim.sql';

/** The statements of EventsHandler (ADR 0223): a page of an app's kept events, and one of them. */

/** Which ids a page may hold: at or after `from`, before `to` (null: no bound), both id bounds (idTimeFloor, a cursor). */
export interface EventIdRange {
  from: string;
  to: string | null;
}

/** A row of listEventsStatement and eventStatement. */
export interface KeptEventRow {
  event_id: string;
  payload: string;
}

/** The shared conditions of a kept event the app may see at `now` (the trailing placeholders: app id, then now). */
const VISIBLE = `e.app_id = ? and e.payload is not null and ${mediaReadyCondition('e', '?')}`;

/**
 * A page of the app's events of `types` in `range`, newest first, one more than `limit` (to tell
 * whether another page follows). Each type is a range of `public_events_by_app_type` read backwards
 * and stopped at the page's size; a page of several types merges those few rows, so a rare type is
 * never looked for among a common one's.
 */
export function listEventsStatement(args: { appId: string; types: readonly AppEventType[]; range: EventIdRange; limit: number; now: Date }): Statement {
  const params: unknown[] = [];
  const branches = args.types.map((type) => {
    params.push(args.appId, args.now, type, args.range.from);
    if (args.range.to !== null) params.push(args.range.to);
    params.push(args.limit + 1);
    return `(select e.event_id, e.payload from webhook_dispatcher.public_events e
              where ${VISIBLE} and e.type = ? and e.event_id >= ?${args.range.to !== null ? ' and e.event_id < ?' : ''}
              order by e.event_id desc limit ?)`;
  });
  return {
    sql: `select event_id, payload from (${branches.join(' union all ')}) page order by event_id desc limit ?`,
    params: [...params, args.limit + 1],
  };
}

/** One kept event of the app, of a listed type, at or after `from` (the 30 days). */
export function eventStatement(args: { appId: string; eventId: string; types: readonly AppEventType[]; from: string; now: Date }): Statement {
  return {
    sql: `select e.event_id, e.payload from webhook_dispatcher.public_events e
          where e.event_id = ? and ${VISIBLE} and e.type = any(?::text[]) and e.event_id >= ?`,
    params: [args.eventId, args.appId, args.now, pgTextArray([...args.types]), args.from],
  };
}
