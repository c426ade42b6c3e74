import type { ConsentUpdated } from '#platform/contracts';
import { deciderSpecification } from '#platform/decider/testing';
import { consentDecider, type ConsentCommand, type VerifiedLink } from './consent.decider';
import type { ConsentEvent } from './consent.state';

const spec = deciderSpecification(consentDecider);
const who = { appUserId: 'u_AAAAAAAAAAAAAAAAAAAAAA', userId: 'usr_1' };
const T0 = '2026-11-01T10:00:00.000Z';
const T1 = '2026-11-02T10:00:00.000Z';
const T2 = '2026-11-03T10:00:00.000Z';
const at = (iso: string) => ({ now: new Date(iso) });

type Simple =
  'RecordUserMessage' | 'AllowFromProfile' | 'StopApp' | 'BlockApp' | 'UnblockApp' | 'RecordTesterInvitation' | 'AcceptTesterInvitation' | 'DeleteAccount';
const cmd = (type: Simple, when = T1): ConsentCommand => ({ type, data: who, metadata: at(when) }) as ConsentCommand;
const link: VerifiedLink = { linkId: 'lnk_1', ref: 'spring-campaign', expiresAt: new Date('2026-12-01T00:00:00Z') };
const open = (l: VerifiedLink = link, when = T1): ConsentCommand => ({ type: 'RecordOptInLinkOpened', data: { ...who, link: l }, metadata: at(when) });
const allowLink = (l: VerifiedLink = link, when = T1): ConsentCommand => ({ type: 'AllowOptInLink', data: { ...who, link: l }, metadata: at(when) });

const identified: ConsentEvent = { type: 'AppUserIdentified', data: who };
const opened: ConsentEvent = { type: 'OptInLinkOpenRecorded', data: { ...who, linkId: 'lnk_1' } };
const invited: ConsentEvent = { type: 'TesterInvited', data: who };
const acceptedTester: ConsentEvent = { type: 'TesterAccepted', data: who };
const consent = (data: Partial<ConsentUpdated['data']>): ConsentEvent => ({
  type: 'ConsentUpdated',
  data: { ...who, status: 'opted_in', previousStatus: null, source: 'user_initiated', ref: null, reason: null, optedInAt: T0, optedOutAt: null, ...data },
});
const optedIn = consent({});
const stoppedAtT1 = consent({ status: 'opted_out', previousStatus: 'opted_in', optedOutAt: T1 });
const blockedAtT1 = consent({ status: 'blocked', previousStatus: 'opted_in', optedOutAt: T1 });

describe('Consent decider', () => {
  describe('user_initiated (a user message)', () => {
    it('a first message identifies the user and opts them in', () =>
      spec
        .given([])
        .when(cmd('RecordUserMessage', T0))
        .then([identified, consent({ optedInAt: T0 })]));
    it('a message while opted in changes nothing', () => spec.given([identified, optedIn]).when(cmd('RecordUserMessage')).then([]));
    it('a message after a stop opts in again (D5)', () =>
      spec
        .given([identified, optedIn, stoppedAtT1])
        .when(cmd('RecordUserMessage', T2))
        .then([consent({ previousStatus: 'opted_out', optedInAt: T2, optedOutAt: null })]));
    it('a message while blocked is refused', () =>
      spec.given([identified, optedIn, blockedAtT1]).when(cmd('RecordUserMessage', T2)).thenThrows('invalid_transition'));
  });

  describe('opt_in_link', () => {
    it('opening a link records the open and never opts in', () => spec.given([]).when(open()).then([identified, opened]));
    it('Allow after opening opts in with the link ref', () =>
      spec
        .given([identified, opened])
        .when(allowLink())
        .then([consent({ source: 'opt_in_link', ref: 'spring-campaign', optedInAt: T1 })]));
    it('a link without a ref opts in with ref null', () =>
      spec
        .given([identified, opened])
        .when(allowLink({ ...link!, ref: null }))
        .then([consent({ source: 'opt_in_link', ref: null, optedInAt: T1 })]));
    it('Allow without opening the link is refused', () => spec.given([]).when(allowLink()).thenThrows('invalid_transition'));
    it('Allow on another link than the opened one is refused', () =>
      spec
        .given([identified, opened])
        .when(allowLink({ ...link!, linkId: 'lnk_2' }))
        .thenThrows('invalid_transition'));
    it('Allow on an expired link is refused', () =>
      spec
        .given([identified, opened])
        .when(allowLink(link, '2026-12-01T00:00:00.000Z'))
        .thenThrows('invalid_request', (e) => expect(e.details?.[0].field).toBe('token')));
    it('Allow on a tampered link (no valid signature) is refused', () => spec.given([identified, opened]).when(allowLink(null)).thenThrows('invalid_request'));
    it('opening a tampered link is refused', () => spec.given([]).when(open(null)).thenThrows('invalid_request'));
    it('Allow while opted in changes nothing', () => spec.given([identified, optedIn, opened]).when(allowLink()).then([]));
    it('Allow while blocked is refused', () =>
      spec.given([identified, optedIn, blockedAtT1, opened]).when(allowLink(link, T2)).thenThrows('invalid_transition'));
    it('Allow after a stop opts in again (D5)', () =>
      spec
        .given([identified, optedIn, stoppedAtT1, opened])
        .when(allowLink(link, T2))
        .then([consent({ previousStatus: 'opted_out', source: 'opt_in_link', ref: 'spring-campaign', optedInAt: T2 })]));
  });

  describe('profile_allow', () => {
    it('Allow on the profile opts in', () =>
      spec
        .given([])
        .when(cmd('AllowFromProfile', T0))
        .then([identified, consent({ source: 'profile_allow' })]));
    it('Allow on the profile after a stop opts in again', () =>
      spec
        .given([identified, optedIn, stoppedAtT1])
        .when(cmd('AllowFromProfile', T2))
        .then([consent({ previousStatus: 'opted_out', source: 'profile_allow', optedInAt: T2 })]));
    it('Allow on the profile while blocked is refused', () =>
      spec.given([identified, optedIn, blockedAtT1]).when(cmd('AllowFromProfile', T2)).thenThrows('invalid_transition'));
  });

  describe('stop and block', () => {
    it('stop: opted_in → opted_out, keeping source and ref', () =>
      spec
        .given([identified, consent({ source: 'opt_in_link', ref: 'r1' })])
        .when(cmd('StopApp'))
        .then([consent({ status: 'opted_out', previousStatus: 'opted_in', source: 'opt_in_link', ref: 'r1', optedOutAt: T1 })]));
    it('block: opted_in → blocked', () => spec.given([identified, optedIn]).when(cmd('BlockApp')).then([blockedAtT1]));
    it('block: opted_out → blocked, keeping when they opted out', () =>
      spec
        .given([identified, optedIn, stoppedAtT1])
        .when(cmd('BlockApp', T2))
        .then([consent({ status: 'blocked', previousStatus: 'opted_out', optedOutAt: T1 })]));
    it('stop while opted out changes nothing', () => spec.given([identified, optedIn, stoppedAtT1]).when(cmd('StopApp', T2)).then([]));
    it('stop while blocked changes nothing', () => spec.given([identified, optedIn, blockedAtT1]).when(cmd('StopApp', T2)).then([]));
    it('block while blocked changes nothing', () => spec.given([identified, optedIn, blockedAtT1]).when(cmd('BlockApp', T2)).then([]));
    it('stop without a consent is refused', () => spec.given([]).when(cmd('StopApp')).thenThrows('invalid_transition'));
    it('block without a consent is refused', () => spec.given([identified, opened]).when(cmd('BlockApp')).thenThrows('invalid_transition'));
  });

  describe('unblock (D5)', () => {
    it('blocked → opted_out', () =>
      spec
        .given([identified, optedIn, blockedAtT1])
        .when(cmd('UnblockApp', T2))
        .then([consent({ status: 'opted_out', previousStatus: 'blocked', optedOutAt: T1 })]));
    it('unblock when not blocked changes nothing', () => spec.given([identified, optedIn]).when(cmd('UnblockApp')).then([]));
    it('after unblock a message opts in again', () =>
      spec
        .given([identified, optedIn, blockedAtT1, consent({ status: 'opted_out', previousStatus: 'blocked', optedOutAt: T1 })])
        .when(cmd('RecordUserMessage', T2))
        .then([consent({ previousStatus: 'opted_out', optedInAt: T2 })]));
  });

  describe('sandbox_tester', () => {
    it('an invitation is recorded', () => spec.given([]).when(cmd('RecordTesterInvitation')).then([identified, invited]));
    it('a repeated invitation changes nothing', () => spec.given([identified, invited]).when(cmd('RecordTesterInvitation')).then([]));
    it('an accepted tester cannot be invited again', () =>
      spec.given([identified, invited, acceptedTester]).when(cmd('RecordTesterInvitation')).thenThrows('invalid_transition'));
    it('accepting opts in with source sandbox_tester', () =>
      spec
        .given([identified, invited])
        .when(cmd('AcceptTesterInvitation'))
        .then([acceptedTester, consent({ source: 'sandbox_tester', optedInAt: T1 })]));
    it('accepting while opted in keeps the consent as it is', () =>
      spec.given([identified, optedIn, invited]).when(cmd('AcceptTesterInvitation')).then([acceptedTester]));
    it('accepting without an invitation is refused', () =>
      spec.given([identified, optedIn]).when(cmd('AcceptTesterInvitation')).thenThrows('invalid_transition'));
    it('accepting while blocked is refused', () =>
      spec.given([identified, optedIn, blockedAtT1, invited]).when(cmd('AcceptTesterInvitation', T2)).thenThrows('invalid_transition'));
    it('accepting twice changes nothing', () => spec.given([identified, invited, acceptedTester]).when(cmd('AcceptTesterInvitation')).then([]));
  });

  describe('account_deleted', () => {
    it('opted_in → opted_out with reason account_deleted', () =>
      spec
        .given([identified, optedIn])
        .when(cmd('DeleteAccount'))
        .then([consent({ status: 'opted_out', previousStatus: 'opted_in', reason: 'account_deleted', optedOutAt: T1 })]));
    it('blocked → opted_out with reason account_deleted', () =>
      spec
        .given([identified, optedIn, blockedAtT1])
        .when(cmd('DeleteAccount', T2))
        .then([consent({ status: 'opted_out', previousStatus: 'blocked', reason: 'account_deleted', optedOutAt: T1 })]));
    it('opted_out: the reason still tells the app the account is gone', () =>
      spec
        .given([identified, optedIn, stoppedAtT1])
        .when(cmd('DeleteAccount', T2))
        .then([consent({ status: 'opted_out', previousStatus: 'opted_out', reason: 'account_deleted', optedOutAt: T1 })]));
    it('no consent: nothing to tell', () => spec.given([identified, opened]).when(cmd('DeleteAccount')).then([]));
    it('deleting twice changes nothing', () =>
      spec
        .given([identified, optedIn, consent({ status: 'opted_out', previousStatus: 'opted_in', reason: 'account_deleted', optedOutAt: T1 })])
        .when(cmd('DeleteAccount', T2))
        .then([]));
    it('nothing moves a deleted account back in', () =>
      spec
        .given([identified, optedIn, consent({ status: 'opted_out', previousStatus: 'opted_in', reason: 'account_deleted', optedOutAt: T1 })])
        .when(cmd('RecordUserMessage', T2))
        .thenThrows('invalid_transition'));
  });
});
