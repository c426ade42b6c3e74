import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '#platform/clock';
import { readJsonBody } from '../http/body-reader';
import { FinishedKeys } from '../idempotency/finished-keys';
import { bodyHash, checkIdempotencyKey } from '../idempotency/idempotency-key';
import { LocalTokenBucket } from '../rate-limits/local-token-bucket';
import type { PublicResult, PublicRoute } from './public-route';

/** Free answers while limited, as a share of the app's own limit (rate and burst). */
const FREE_REPLAY_SHARE = 0.1;

/**
 * The gateway pipeline, step 4: a replay of a finished Idempotency-Key may be answered without
 * charging the bucket, but a refused request makes no call to any service. So when an app's bucket is
 * empty, a retry whose key this replica answered 2xx, with the same body, gets that answer again from
 * the gateway's own record (FinishedKeys); anything else (no key, a key answered elsewhere or not at
 * all, another body, a body that cannot be read) is 429, and no service hears of it. Free answers
 * have a token bucket of their own per app, a tenth of the app's limit, in this replica's memory: a
 * client retrying in a loop gets 429 once it is spent, and each replica adds at most that much.
 * See ADR 0205.
 */
export class ReplayWhenLimited {
  private readonly free: LocalTokenBucket;

  constructor(
    private readonly finished: FinishedKeys,
    private readonly clock: Clock,
    limit: { ratePerSecond: number; burst: number },
  ) {
    this.free = new LocalTokenBucket(limit.ratePerSecond * FREE_REPLAY_SHARE, Math.max(1, Math.floor(limit.burst * FREE_REPLAY_SHARE)));
  }

  /** Keeps a 2xx answer of an idempotent route, for its replays while the app is limited. */
  remember(route: PublicRoute, appId: string, idempotency: { key: string; bodyHash: string }, result: PublicResult): void {
    if (!route.idempotent || result.status < 200 || result.status > 299) return;
    this.finished.remember(appId, idempotency.key, idempotency.bodyHash, { status: result.status, body: result.body }, route.idempotent.recordedAt(result));
  }

  /** The saved answer for a limited request, or null for the 429. Reads the body only for a key it holds. */
  async answer(route: PublicRoute, req: IncomingMessage, res: ServerResponse, appId: string, bodyTimeoutMs?: number): Promise<PublicResult | null> {
    if (!route.idempotent) return null;
    try {
      const key = checkIdempotencyKey(req.headers['idempotency-key']);
      if (!this.finished.holds(appId, key, this.clock.nowMs())) return null;
      if (!this.free.take(appId).allowed) return null;
      const raw = await readJsonBody(req, res, { timeoutMs: bodyTimeoutMs });
      const saved = this.finished.answer(appId, key, bodyHash(raw), this.clock.nowMs());
      return saved && { status: saved.status, body: saved.body, headers: { 'Idempotent-Replayed': 'true' } };
    } catch {
      return null;
    }
  }
}
