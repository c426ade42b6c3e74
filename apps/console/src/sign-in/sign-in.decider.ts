import { assertNever, type Command, type Decider } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { evolveSignIn, initialSignInState, type SignInEvent, type SignInState } from './sign-in.state';

/** A sign-in link works for 15 minutes, once (issue 34). */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** A session lasts 12 hours from sign-in; then the person signs in again. */
export const SIGNED_IN_TTL_MS = 12 * 3600_000;
/** The window of both sign-in limits. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** Links emailed to one address per window: more requests are answered alike but mail nothing. */
export const LINKS_PER_ADDRESS = 3;
/** Sign-in requests from one client per window, whatever the addresses: more are refused (429; sign-in-client-limit.rule.ts). */
export const REQUESTS_PER_CLIENT = 10;

export type SignInCommand =
  /**
   * Someone asked for a link for `email`, and was answered (the client's limit admitted the request
   * before anything about the address was looked at). Fact: whether the address is a member of any app.
   */
  | Command<'RequestSignInLink', { email: string; tokenHash: string; isMember: boolean }>
  /** A link was followed: `sessionHash` names the session it starts. */
  | Command<'UseSignInLink', { email: string; tokenHash: string; sessionHash: string }>;

const within = (at: string, now: Date, ms: number) => now.getTime() - new Date(at).getTime() < ms;

/**
 * The sign-in rules of a person: a link only for a member (the answer was the same for anyone: no
 * enumeration), at most LINKS_PER_ADDRESS per address in 15 minutes; a link works once, until its
 * 15 minutes are over, and starts a 12-hour session. The per-client limit is decided before, from
 * the request alone (sign-in-client-limit.rule.ts).
 */
export function decideSignIn(command: SignInCommand, state: SignInState): SignInEvent[] {
  const now = command.metadata.now;
  switch (command.type) {
    case 'RequestSignInLink': {
      const { email, tokenHash, isMember } = command.data;
      if (!isMember) return [];
      if (state.issuedAt.filter((at) => within(at, now, SIGN_IN_WINDOW_MS)).length >= LINKS_PER_ADDRESS) return [];
      const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS).toISOString();
      return [{ type: 'SignInLinkIssued', data: { email, tokenHash, issuedAt: now.toISOString(), expiresAt } }];
    }
    case 'UseSignInLink': {
      const { email, tokenHash, sessionHash } = command.data;
      const link = state.links[tokenHash];
      if (!link) throw new DomainError('not_found', 'This sign-in link is not known.');
      if (link.usedAt) throw new DomainError('invalid_transition', 'This sign-in link was used already.');
      if (now.getTime() >= new Date(link.expiresAt).getTime()) throw new DomainError('invalid_transition', 'This sign-in link has expired.');
      const until = new Date(now.getTime() + SIGNED_IN_TTL_MS).toISOString();
      return [{ type: 'SignInLinkUsed', data: { email, tokenHash, usedAt: now.toISOString(), sessionHash, sessionExpiresAt: until } }];
    }
    default:
      return assertNever(command);
  }
}

export const signInDecider: Decider<SignInState, SignInCommand, SignInEvent> = {
  initialState: initialSignInState,
  decide: decideSignIn,
  evolve: evolveSignIn,
};
