import { createHash, createHmac } from 'node:crypto';
import { takeRandomBytes } from './random-pool';

/** Id prefixes (D1). */
export const ID_PREFIX = {
  message: 'msg_',
  media: 'med_',
  event: 'evt_',
  webhookEndpoint: 'we_',
  webhookDelivery: 'wd_',
  app: 'app_',
  org: 'org_',
  user: 'usr_',
  key: 'key_',
  request: 'req_',
  template: 'tpl_',
} as const;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Random base62 string of the given length, unbiased (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of takeRandomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** ULID body (26 chars, Crockford base32): sorts by time, then random. Time comes from the caller's clock. */
export function ulid(nowMs: number): string {
  let rand = '';
  for (const byte of takeRandomBytes(16)) rand += CROCKFORD[byte % 32];
  return ulidTime(nowMs) + rand;
}

/** A ULID's first 10 characters: the millisecond, Crockford base32. */
function ulidTime(nowMs: number): string {
  let time = '';
  let t = Math.floor(nowMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

/** A prefixed, time-sortable id such as `app_01J…`. */
export function newId(prefix: string, nowMs: number): string {
  return prefix + ulid(nowMs);
}

/**
 * A prefixed id whose time part is `nowMs` and whose random part is a hash of `seed`: services that
 * see the same fact (a file a user sent) name it alike without asking each other.
 */
export function derivedId(prefix: string, nowMs: number, seed: string): string {
  let rand = '';
  for (const byte of createHash('sha256').update(seed).digest().subarray(0, 16)) rand += CROCKFORD[byte % 32];
  return prefix + ulidTime(nowMs) + rand;
}

/**
 * Time-ordered ids (newId, derivedId) as ranges: every id of `prefix` made at or after `ms` sorts at
 * or after `idTimeFloor(prefix, ms)`, every one made before it sorts before it (same length, one
 * alphabet, so any collation orders them alike). Lists keyed by id filter by time with these.
 */
export function idTimeFloor(prefix: string, ms: number): string {
  return prefix + ulidTime(Math.max(0, ms)) + '0'.repeat(16);
}

/** The millisecond a time-ordered id (newId, derivedId) was made at, or null when it is not one. */
export function idTimeMs(id: string, prefix: string): number | null {
  const body = id.startsWith(prefix) ? id.slice(prefix.length) : '';
  if (!/^[0-9A-HJKMNP-TV-Z]{26}$/.test(body)) return null;
  let ms = 0;
  for (const char of body.slice(0, 10)) ms = ms * 32 + CROCKFORD.indexOf(char);
  return ms;
}

/** The `med_` id of a file a user sent (the n-th of a message): the same in messaging and media. */
export function inboundMediaId(messageId: string, sentAtMs: number, index: number): string {
  return derivedId(ID_PREFIX.media, sentAtMs, `inbound:${messageId}:${index}`);
}

/** UUIDv7 (RFC 9562): the id of every domain event. */
export function uuidv7(nowMs: number): string {
  // A copy: the time is written into it, and the pool's bytes are not ours to change.
  const bytes = Buffer.from(takeRandomBytes(16));
  const ts = BigInt(Math.floor(nowMs));
  for (let i = 0; i < 6; i++) bytes[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A UUIDv7 whose random part is a hash of `seed`: the same (time, seed) always gives the same id.
 * Used for events derived from other events, so that re-deriving them is recognisably a repeat.
 */
export function derivedUuidv7(nowMs: number, seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  const ts = BigInt(Math.floor(nowMs));
  for (let i = 0; i < 6; i++) bytes[i] = Number((ts >> BigInt(8 * (5 - i))) & 0xffn);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Base62 characters of a request id's time: millisecond times until the year 8000 fit. */
const REQUEST_TIME_CHARS = 8;

/**
 * Request id: `req_` + 24 base62 chars (architecture section 3): the first 8 the millisecond it was
 * made (so the request log finds a request by its id alone, and ids sort by time), the other 16 random.
 */
export function newRequestId(nowMs: number = Date.now()): string {
  let time = '';
  for (let n = Math.floor(nowMs), i = 0; i < REQUEST_TIME_CHARS; i++, n = Math.floor(n / 62)) time = BASE62[n % 62] + time;
  return ID_PREFIX.request + time + randomBase62(24 - REQUEST_TIME_CHARS);
}

/** The millisecond a request id was made (newRequestId), or null when it is not one of those. */
export function requestIdTimeMs(requestId: string): number | null {
  if (!/^req_[0-9A-Za-z]{24}$/.test(requestId)) return null;
  let ms = 0;
  for (const char of requestId.slice(4, 4 + REQUEST_TIME_CHARS)) ms = ms * 62 + BASE62.indexOf(char);
  return ms;
}

export const APP_USER_ID_PATTERN = /^u_[0-9A-Za-z]{22}$/;

/**
 * appUserId (D2): `u_` + the first 22 base62 chars of HMAC-SHA256(secret, appId:userId).
 * Stable, unlinkable across apps, computable by any service that holds the secret.
 */
export function appUserIdFor(secret: string, appId: string, userId: string): string {
  const digest = createHmac('sha256', secret).update(`${appId}:${userId}`).digest();
  // Read the digest as a big number and write it in base62 so every character carries entropy.
  let n = BigInt('0x' + digest.toString('hex'));
  let out = '';
  while (out.length < 22) {
    out += BASE62[Number(n % 62n)];
    n /= 62n;
  }
  return 'u_' + out;
}
