/** What the counts need of an event: its type, its app and the UTC day it occurred on (`YYYY-MM-DD`). */
export interface CountableEvent {
  type: string;
  appId: string | null;
  day: string;
}

/** An event's UTC day, from its ISO 8601 time. */
export function utcDayOf(occurredAt: string): string {
  return new Date(occurredAt).toISOString().slice(0, 10);
}

/** The statuses the overview counts per day (message.status's values). */
export const COUNTED_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;
export type CountedStatus = (typeof COUNTED_STATUSES)[number];

const STATUS_OF: Record<string, CountedStatus> = { MessageSent: 'sent', MessageDelivered: 'delivered', MessageRead: 'read', MessageFailed: 'failed' };

/** The event types that move a message into a counted status. */
export const COUNTED_EVENT_TYPES = Object.keys(STATUS_OF);

/**
 * What one of messaging's events adds to an app's day (ADR 0218): a message counts once in each status
 * it reached, on the UTC day it reached it, because messaging's decider appends each of these events
 * at most once per message (MessageSent once per send, D3; MessageDelivered only from sent;
 * MessageRead only from sent or delivered; MessageFailed only from sent, D4). A message read without
 * a delivery receipt counts as read only; accepted (never handed over) and received (inbound)
 * messages are not counted. null: nothing to count.
 */
export function countedStatus(event: CountableEvent): { appId: string; day: string; status: CountedStatus } | null {
  const status = STATUS_OF[event.type];
  if (!status || !event.appId) return null;
  return { appId: event.appId, day: event.day, status };
}

/** What a slice of events adds to one app's day, per status. */
export interface DayCounts {
  appId: string;
  day: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
}

/**
 * The counts of many events summed per app and day, sorted by app and day: written in that order,
 * two writers adding to the same days lock them in one order and never deadlock.
 */
export function dayCounts(events: CountableEvent[]): DayCounts[] {
  const byDay = new Map<string, DayCounts>();
  for (const event of events) {
    const counted = countedStatus(event);
    if (!counted) continue;
    const key = `${counted.appId} ${counted.day}`;
    const row = byDay.get(key) ?? { appId: counted.appId, day: counted.day, sent: 0, delivered: 0, read: 0, failed: 0 };
    row[counted.status] += 1;
    byDay.set(key, row);
  }
  return [...byDay.values()].sort((a, b) => (a.appId === b.appId ? a.day.localeCompare(b.day) : a.appId.localeCompare(b.appId)));
}

/** Two counts of one app's day, added. */
export function addCounts(a: DayCounts, b: DayCounts): DayCounts {
  return { appId: a.appId, day: a.day, sent: a.sent + b.sent, delivered: a.delivered + b.delivered, read: a.read + b.read, failed: a.failed + b.failed };
}
