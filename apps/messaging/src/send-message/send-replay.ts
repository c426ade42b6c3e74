import type { SentMessageType, SendMessageCall, SendMessageOutcome } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { GroupOutcome } from '#platform/postgres';
import { isoTime, type DbTimestamp } from '#platform/service-kit';

/** The answers to a send whose Idempotency-Key is already taken: by a running twin, or by a send recorded before. */

/** The send that holds a key, with its message (null if missing), for a twin that arrives later. */
export interface HeldRow {
  app_id: string;
  idempotency_key: string;
  body_hash: string;
  message_id: string;
  app_user_id: string | null;
  type: SentMessageType;
  created_at: DbTimestamp;
  client_reference: string | null;
}

/** A running twin's answer (architecture section 3): the same body is in progress, another body reuses the key. */
export function twinRefusal(runningBodyHash: string, bodyHash: string): DomainError {
  return new DomainError(runningBodyHash === bodyHash ? 'idempotency_in_progress' : 'idempotency_key_reused');
}

/** A send whose key another send holds: the same body replays that send's acceptance, another body is 422. */
export function replayOutcome(request: Pick<SendMessageCall, 'bodyHash'>, held: HeldRow): GroupOutcome<SendMessageOutcome> {
  if (held.body_hash !== request.bodyHash) return { ok: false, error: new DomainError('idempotency_key_reused') };
  if (held.app_user_id === null) return { ok: false, error: new DomainError('internal_error', 'The message holding this Idempotency-Key is missing.') };
  return {
    ok: true,
    value: {
      acceptance: {
        id: held.message_id,
        status: 'accepted',
        appUserId: held.app_user_id,
        type: held.type,
        createdAt: isoTime(held.created_at),
        clientReference: held.client_reference,
      },
      replayed: true,
    },
  };
}
