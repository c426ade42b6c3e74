import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RpcCaller } from '#platform/contracts';
import { readJsonBody } from '../http/body-reader';
import { bodyHash, checkIdempotencyKey } from '../idempotency/idempotency-key';
import type { PublicResult, PublicRoute } from './public-route';

/**
 * DESIGN section 3, step 4: a replay of a finished Idempotency-Key may be answered without charging
 * the bucket. When the app's bucket is empty, an idempotent request whose key already holds a finished
 * answer for the same body gets that answer instead of 429: after an outage, clients retrying sends
 * that were saved are told so at once rather than throttled into giving up. Anything else (no key, a
 * key still running or used with another body, a body that cannot be read) stays a 429.
 */
export async function replayInsteadOfRefusal(
  route: PublicRoute,
  req: IncomingMessage,
  res: ServerResponse,
  caller: RpcCaller & { appId: string },
  bodyTimeoutMs?: number,
): Promise<PublicResult | null> {
  if (!route.idempotent) return null;
  try {
    const key = checkIdempotencyKey(req.headers['idempotency-key']);
    const raw = await readJsonBody(req, res, { timeoutMs: bodyTimeoutMs });
    return await route.idempotent.heldKey(caller, caller.appId, { key, bodyHash: bodyHash(raw) });
  } catch {
    return null;
  }
}
