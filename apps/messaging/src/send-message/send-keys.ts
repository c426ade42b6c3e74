import type { SendMessageCall } from '#platform/contracts';

/** Map keys of a batch's rows, and the key order that locks are taken in (so batches never wait in a circle). */

/** A two-column primary key (app and key, or app and day) as one map key. */
export function rowKey(appId: string, second: string): string {
  return `${appId}\u0000${second}`;
}

export function claimKey(request: Pick<SendMessageCall, 'appId' | 'idempotencyKey'>): string {
  return rowKey(request.appId, request.idempotencyKey);
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
