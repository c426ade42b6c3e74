import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import type { Clock } from '#platform/clock';
import { DomainError, isDomainError } from '#platform/errors';
import { clientAddress } from '#platform/service-kit';
import type { ApiKeyCache, ApiKeyRecord } from '../api-keys/api-key.cache';
import { looksLikeApiKey } from '../api-keys/api-key-format';
import type { RateLimiter } from '../rate-limits/rate-limiter';

export interface KeyAuthenticationDeps {
  keys: ApiKeyCache;
  /** Failed authentication per client address (architecture section 3, step 4), checked before any key lookup. */
  authFailures: RateLimiter;
  trustedProxies: BlockList;
  clock: Clock;
}

/**
 * Step 2 of the pipeline: the API key of a request, charged to its client address while unknown
 * (docs/adr/0146-api-key-authentication.md). Requests with the same key from the same
 * address while one of them is being charged and looked up wait for it and are not charged
 * themselves: a burst of a key this replica has not seen yet costs the address one attempt, not one
 * per request (docs/adr/0146-api-key-authentication.md). Each then reads the key cache
 * itself, which knows whether an answer is still current after a revocation.
 */
export function createKeyAuthentication(deps: KeyAuthenticationDeps): (req: IncomingMessage, res: ServerResponse) => Promise<ApiKeyRecord> {
  const charged = new Map<string, Promise<ApiKeyRecord>>();

  return function authenticate(req, res) {
    const header = req.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const key = match && looksLikeApiKey(match[1]) ? match[1] : null;
    // A key this replica already knows valid is not charged, so it keeps working from an address that is being flooded.
    if (key !== null && deps.keys.knownValid(key, deps.clock.nowMs())) return verified(key);
    const address = clientAddress(req, deps.trustedProxies);
    if (key === null) return withLimitHeaders(res, chargedCheck(match ? null : undefined, address));
    const flight = `${address}\n${key}`;
    const underWay = charged.get(flight);
    if (underWay) return withLimitHeaders(res, afterCharged(underWay, key));
    const check = chargedCheck(key, address).finally(() => charged.delete(flight));
    charged.set(flight, check);
    return withLimitHeaders(res, check);
  };

  /**
   * Every attempt is charged to its address before the key is looked up, and given back when the key
   * is good: an address over its failures is refused without reaching Postgres.
   * `key` undefined: no Bearer credentials at all; null: credentials that cannot be a key.
   */
  async function chargedCheck(key: string | null | undefined, address: string): Promise<ApiKeyRecord> {
    const gate = await deps.authFailures.take(address);
    if (!gate.allowed)
      throw DomainError.rateLimited(`Too many failed authentications from this address; wait ${gate.retryAfterSeconds} seconds.`, gate.retryAfterSeconds);
    if (key === undefined) throw new DomainError('invalid_api_key', 'Send the API key as Authorization: Bearer <API_KEY>.');
    if (key === null) throw new DomainError('invalid_api_key');
    const record = await verified(key);
    deps.authFailures.refund(address);
    return record;
  }

  /** Waits for the charged check of the same key and address; refused with it, otherwise checks the key uncharged. */
  async function afterCharged(underWay: Promise<ApiKeyRecord>, key: string): Promise<ApiKeyRecord> {
    await underWay.catch((error: unknown) => {
      if (isAddressLimited(error)) throw error;
    });
    return verified(key);
  }

  async function verified(key: string): Promise<ApiKeyRecord> {
    const record = await deps.keys.lookup(key);
    if (!record || record.revokedAt !== null) throw new DomainError('invalid_api_key');
    if (record.expiresAt !== null && record.expiresAt.getTime() <= deps.clock.nowMs()) throw new DomainError('invalid_api_key', 'The API key has expired.');
    return record;
  }

  /** A refusal by the address's limit shows that limit's headers, on every request that waited for it. */
  async function withLimitHeaders(res: ServerResponse, checked: Promise<ApiKeyRecord>): Promise<ApiKeyRecord> {
    try {
      return await checked;
    } catch (error) {
      if (isAddressLimited(error)) {
        res.setHeader('RateLimit-Limit', String(deps.authFailures.burst));
        res.setHeader('RateLimit-Remaining', '0');
      }
      throw error;
    }
  }
}

/** Within authentication, only the address's limit refuses with rate_limited. */
function isAddressLimited(error: unknown): boolean {
  return isDomainError(error) && error.code === 'rate_limited';
}
