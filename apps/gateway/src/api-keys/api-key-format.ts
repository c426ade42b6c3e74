import { createHash, timingSafeEqual } from 'node:crypto';
import { KEY_PREFIXES, randomBase62, type KeyEnvironment } from '#platform/contracts';

const KEY_PATTERN = /^qk_(sb|live)_[0-9A-Za-z]{32}$/;

/** `qk_sb_`/`qk_live_` + 32 base62 characters (architecture section 3). */
export function generateApiKey(environment: KeyEnvironment): string {
  return KEY_PREFIXES[environment] + randomBase62(32);
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

export function environmentOfKey(key: string): KeyEnvironment {
  return key.startsWith(KEY_PREFIXES.live) ? 'live' : 'sandbox';
}

/** Only this hash is stored; the key itself is shown once at creation. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Shown in listings so an operator can tell keys apart: the environment prefix and 4 characters. */
export function displayPrefix(key: string): string {
  const env = environmentOfKey(key);
  return key.slice(0, KEY_PREFIXES[env].length + 4);
}

/** Constant-time equality of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
