import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh unguessable token (256 bits), URL- and cookie-safe. */
export const newToken = (): string => randomBytes(32).toString('base64url');

/** What is stored of a token: its SHA-256, so a database leak opens no session and no link. */
export const tokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time equality of two tokens (CSRF). */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
