/** What the patch touches of kafkajs' RequestQueue (one per broker connection). */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs' own wait before re-checking requests held back by throttling (CHECK_PENDING_REQUESTS_INTERVAL). */
const CHECK_PENDING_REQUESTS_INTERVAL_MS = 10;

let patched = false;

/**
 * kafkajs 2.2.4 re-checks its pending requests on a timer even when none is pending and nothing is
 * throttled, with a negative delay: every broker connection of every client runs a 1 ms timer loop
 * for as long as it is open (tulios/kafkajs#1556 and #1704; the fixes #1667 and #1768 are unmerged,
 * and 2.2.4 is the last release). Here that is about fifteen connections per service: an idle
 * service spent 4 % of a core on it, and every service woke a thousand times a second per
 * connection under load, on a machine whose two cores run the whole stack.
 *
 * This schedules a check only when a request waits or throttling is in effect, as the comment on
 * kafkajs' own method says it means to; a request pushed onto an idle queue is sent at once, or
 * schedules its own check. Applied once per process, before any client connects.
 */
export function stopKafkaJsIdleTimerLoop(): void {
  if (patched) return;
  patched = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const RequestQueue = require('kafkajs/src/network/requestQueue') as { prototype: RequestQueueInternals };
  RequestQueue.prototype.scheduleCheckPendingRequests = function scheduleCheckPendingRequests(this: RequestQueueInternals) {
    if (this.throttleCheckTimeoutId) return;
    const untilUnthrottled = this.throttledUntil - Date.now();
    if (this.pending.length === 0 && untilUnthrottled <= 0) return;
    this.throttleCheckTimeoutId = setTimeout(
      () => {
        this.throttleCheckTimeoutId = null;
        this.checkPendingRequests();
      },
      untilUnthrottled > 0 ? untilUnthrottled : CHECK_PENDING_REQUESTS_INTERVAL_MS,
    );
  };
}
