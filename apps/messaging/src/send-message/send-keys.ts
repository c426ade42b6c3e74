import type { SendMessageCall } from '#platform/contracts';
import { utcDay } from '../messages/send-rules';
import type { ClaimedSend } from './send-message.types';

/** Map keys of a batch's rows, and the key order that locks are taken in (so batches never wait in a circle). */

/** A two-column primary key (app and key, or app and day) as one map key. */
export function rowKey(appId: string, second: string): string {
  return `${appId}\u0000${second}`;
}

export function claimKey(request: Pick<SendMessageCall, 'appId' | 'idempotencyKey'>): string {
  return rowKey(request.appId, request.idempotencyKey);
}

export function dayKey(send: ClaimedSend): string {
  return rowKey(send.request.appId, utcDay(send.now));
}

export function userKey(send: ClaimedSend): string {
  return `${send.request.appId}:${send.appUserId}`;
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
