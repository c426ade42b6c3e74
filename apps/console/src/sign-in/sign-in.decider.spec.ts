import { deciderSpecification } from '#platform/decider/testing';
import { LINKS_PER_ADDRESS, signInDecider, type SignInCommand } from './sign-in.decider';
import type { SignInEvent } from './sign-in.state';

const spec = deciderSpecification(signInDecider);
const email = 'ana@example.com';
const at = (iso: string) => ({ now: new Date(iso) });

const request = (now: string, facts: { isMember?: boolean; tokenHash?: string } = {}): SignInCommand => ({
  type: 'RequestSignInLink',
  data: { email, tokenHash: facts.tokenHash ?? 'tok-1', isMember: facts.isMember ?? true },
  metadata: at(now),
});
const issued = (issuedAt: string, tokenHash = 'tok-1'): SignInEvent => ({
  type: 'SignInLinkIssued',
  data: { email, tokenHash, issuedAt: new Date(issuedAt).toISOString(), expiresAt: new Date(Date.parse(issuedAt) + 15 * 60_000).toISOString() },
});
const use = (now: string, tokenHash = 'tok-1'): SignInCommand => ({
  type: 'UseSignInLink',
  data: { email, tokenHash, sessionHash: 'ses-1' },
  metadata: at(now),
});
const used = (usedAt: string, tokenHash = 'tok-1'): SignInEvent => ({
  type: 'SignInLinkUsed',
  data: {
    email,
    tokenHash,
    usedAt: new Date(usedAt).toISOString(),
    sessionHash: 'ses-1',
    sessionExpiresAt: new Date(Date.parse(usedAt) + 12 * 3600_000).toISOString(),
  },
});

describe('Sign-in decider', () => {
  describe('RequestSignInLink', () => {
    it('issues a 15-minute link to a member', () =>
      spec
        .given([])
        .when(request('2026-05-01T10:00:00Z'))
        .then([issued('2026-05-01T10:00:00Z')]));

    it('issues nothing to an address that is no member, and answers alike (no enumeration)', () =>
      spec
        .given([])
        .when(request('2026-05-01T10:00:00Z', { isMember: false }))
        .then([]));

    it(`issues the ${LINKS_PER_ADDRESS}rd link of 15 minutes but not the next; one 15 minutes later again`, () => {
      const three = ['2026-05-01T10:00:00Z', '2026-05-01T10:05:00Z', '2026-05-01T10:10:00Z'].map((t, i) => issued(t, `tok-${i}`));
      spec
        .given(three.slice(0, 2))
        .when(request('2026-05-01T10:10:00Z', { tokenHash: 'tok-2' }))
        .then([three[2]]);
      spec
        .given(three)
        .when(request('2026-05-01T10:14:59.999Z', { tokenHash: 'tok-3' }))
        .then([]);
      spec
        .given(three)
        .when(request('2026-05-01T10:15:00Z', { tokenHash: 'tok-3' }))
        .then([issued('2026-05-01T10:15:00Z', 'tok-3')]);
    });
  });

  describe('UseSignInLink', () => {
    it('starts a 12-hour session with a fresh link', () =>
      spec
        .given([issued('2026-05-01T10:00:00Z')])
        .when(use('2026-05-01T10:14:59.999Z'))
        .then([used('2026-05-01T10:14:59.999Z')]));

    it('refuses a link at its 15th minute', () =>
      spec
        .given([issued('2026-05-01T10:00:00Z')])
        .when(use('2026-05-01T10:15:00Z'))
        .thenThrows('invalid_transition'));

    it('refuses a link used before', () =>
      spec
        .given([issued('2026-05-01T10:00:00Z'), used('2026-05-01T10:01:00Z')])
        .when(use('2026-05-01T10:02:00Z'))
        .thenThrows('invalid_transition'));

    it('refuses a link it never issued', () =>
      spec
        .given([issued('2026-05-01T10:00:00Z')])
        .when(use('2026-05-01T10:01:00Z', 'tok-other'))
        .thenThrows('not_found'));
  });
});
