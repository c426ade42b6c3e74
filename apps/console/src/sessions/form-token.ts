import type { SecretKeyRing } from '#platform/service-kit';

const context = (cookieId: string) => `console-form-token:${cookieId}`;

/**
 * The CSRF token of the forms used before there is a session, bound to the pre-session cookie it
 * goes with: nothing sealed under the key ring (SECRETS_KEYS) with the cookie's value as the bound
 * context, that is an AES-GCM tag over it. Only the console makes one, and it opens with that cookie
 * only: a token handed out with another cookie, or a cookie and token a sender chose together (plain
 * double submit would take those), are refused.
 */
export function formTokenFor(keys: SecretKeyRing, cookieId: string): string {
  return keys.seal('', context(cookieId));
}

export function formTokenMatches(keys: SecretKeyRing, cookieId: string | undefined, token: string): boolean {
  if (!cookieId || !token) return false;
  try {
    keys.open(token, context(cookieId));
    return true;
  } catch {
    // Whatever the sender wrote: a token that does not open for this cookie is no match.
    return false;
  }
}
