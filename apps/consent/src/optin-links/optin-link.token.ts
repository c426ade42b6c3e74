import { createHmac, timingSafeEqual } from 'node:crypto';

/** What an opt-in link token carries (D16): app, ref and expiry, signed by the platform. */
export interface OptInLinkClaims {
  appId: string;
  linkId: string;
  ref: string | null;
  expiresAt: Date;
}

const VERSION = 'v1';

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(`optin.${VERSION}.${payload}`).digest();

/** `<base64url(JSON claims)>.<base64url(HMAC-SHA256)>`: URL-safe, readable by the platform, unforgeable. */
export function signOptInLink(secret: string, claims: OptInLinkClaims): string {
  const payload = b64url(JSON.stringify({ a: claims.appId, l: claims.linkId, r: claims.ref, e: Math.floor(claims.expiresAt.getTime() / 1000) }));
  return `${payload}.${b64url(mac(secret, payload))}`;
}

/** The claims, without checking the signature: only to find which app a link points at. */
export function readOptInLinkClaims(token: string): OptInLinkClaims | null {
  if (typeof token !== 'string' || token.length > 1024) return null;
  const [payload] = token.split('.');
  try {
    const raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof raw.a !== 'string' || typeof raw.l !== 'string' || !(raw.r === null || typeof raw.r === 'string') || !Number.isInteger(raw.e)) return null;
    return { appId: raw.a, linkId: raw.l, ref: raw.r as string | null, expiresAt: new Date((raw.e as number) * 1000) };
  } catch {
    return null;
  }
}

/** The claims when the signature is the platform's, else null (a tampered link opts nobody in). Expiry is the caller's check. */
export function verifyOptInLink(secret: string, token: string): OptInLinkClaims | null {
  if (typeof token !== 'string') return null;
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload, signature] = parts;
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  // base64url decoding ignores stray characters; the canonical form must match exactly.
  if (b64url(given) !== signature) return null;
  return readOptInLinkClaims(token);
}
