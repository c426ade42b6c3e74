import { DomainError } from '#platform/errors';
import { REQUESTS_PER_CLIENT, SIGN_IN_WINDOW_MS } from './sign-in.decider';

/**
 * The per-client sign-in limit, decided from the request alone (nothing about the address it names
 * is known yet, so the answer cannot depend on it): a client's window starts at its first request
 * and lasts SIGN_IN_WINDOW_MS; the (REQUESTS_PER_CLIENT + 1)th request in it is refused.
 * `requestsInWindow` counts this request too (client-requests.counter.ts).
 */
export function admitSignInRequest(requestsInWindow: number): void {
  if (requestsInWindow > REQUESTS_PER_CLIENT) throw new DomainError('rate_limited', 'Too many sign-in requests from here; wait a few minutes.');
}

/** A window that started at or before this moment is over at `now`: the next request starts a new one. */
export const windowOverIfStartedBy = (now: Date): Date => new Date(now.getTime() - SIGN_IN_WINDOW_MS);
