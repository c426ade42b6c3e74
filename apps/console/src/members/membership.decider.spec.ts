import { deciderSpecification } from '#platform/decider/testing';
import { MAX_PENDING_INVITATIONS, membershipDecider, type MembershipCommand } from './membership.decider';
import type { MembershipEvent } from './membership.state';

const spec = deciderSpecification(membershipDecider);
const appId = 'app_1';
const ana = 'ana@example.com';
const bo = 'bo@example.com';
const cy = 'cy@example.com';
const now = '2026-05-01T10:00:00.000Z';
const at = (iso: string) => ({ now: new Date(iso) });

const added = (email: string, role: 'owner' | 'member' = 'owner'): MembershipEvent => ({ type: 'MemberAdded', data: { appId, email, role, by: null } });
const invited = (email: string, tokenHash = `tok-${email}`, when = now): MembershipEvent => ({
  type: 'MemberInvited',
  data: { appId, email, tokenHash, expiresAt: new Date(Date.parse(when) + 7 * 24 * 3600_000).toISOString(), by: ana },
});
const invite = (email: string, by = ana, tokenHash = `tok-${email}`): MembershipCommand => ({
  type: 'InviteMember',
  data: { appId, email, tokenHash, by },
  metadata: at(now),
});
const accept = (tokenHash: string, when = now): MembershipCommand => ({ type: 'AcceptInvitation', data: { appId, tokenHash }, metadata: at(when) });
const remove = (email: string, by = ana): MembershipCommand => ({ type: 'RemoveMember', data: { appId, email, by }, metadata: at(now) });

describe('Membership decider', () => {
  it("makes the app's creator its first owner, once", () => {
    spec
      .given([])
      .when({ type: 'AddCreator', data: { appId, email: ana }, metadata: at(now) })
      .then([added(ana)]);
    spec
      .given([added(ana)])
      .when({ type: 'AddCreator', data: { appId, email: ana }, metadata: at(now) })
      .then([]);
  });

  describe('InviteMember', () => {
    it('lets an owner invite for 7 days', () =>
      spec
        .given([added(ana)])
        .when(invite(bo))
        .then([invited(bo)]));
    it('hides the app from a non-member (404) and refuses a plain member', () => {
      spec
        .given([added(ana)])
        .when(invite(cy, bo))
        .thenThrows('not_found');
      spec
        .given([added(ana), added(bo, 'member')])
        .when(invite(cy, bo))
        .thenThrows('insufficient_scope');
    });
    it('refuses to invite a member', () =>
      spec
        .given([added(ana), added(bo, 'member')])
        .when(invite(bo))
        .thenThrows('invalid_transition'));
    it(`allows ${MAX_PENDING_INVITATIONS} waiting invitations, not one more`, () => {
      const waiting = Array.from({ length: MAX_PENDING_INVITATIONS }, (_, i) => invited(`p${i}@example.com`));
      spec
        .given([added(ana), ...waiting.slice(1)])
        .when(invite('p0@example.com'))
        .then([waiting[0]]);
      spec
        .given([added(ana), ...waiting])
        .when(invite(cy))
        .thenThrows('invalid_transition');
    });
  });

  describe('AcceptInvitation', () => {
    it('makes the invitee a member until the 7th day, once', () => {
      spec
        .given([added(ana), invited(bo)])
        .when(accept(`tok-${bo}`, '2026-05-08T09:59:59.999Z'))
        .then([{ type: 'InvitationAccepted', data: { appId, email: bo, tokenHash: `tok-${bo}` } }, added(bo, 'member')]);
      spec
        .given([added(ana), invited(bo)])
        .when(accept(`tok-${bo}`, '2026-05-08T10:00:00.000Z'))
        .thenThrows('invalid_transition');
      spec
        .given([added(ana), invited(bo), { type: 'InvitationAccepted', data: { appId, email: bo, tokenHash: `tok-${bo}` } }, added(bo, 'member')])
        .when(accept(`tok-${bo}`))
        .thenThrows('invalid_transition');
      spec
        .given([added(ana)])
        .when(accept('tok-unknown'))
        .thenThrows('not_found');
    });
  });

  describe('RemoveMember', () => {
    it('lets an owner remove a member, or another owner, but never the last owner', () => {
      spec
        .given([added(ana), added(bo, 'member')])
        .when(remove(bo))
        .then([{ type: 'MemberRemoved', data: { appId, email: bo, by: ana } }]);
      spec
        .given([added(ana), added(bo)])
        .when(remove(bo))
        .then([{ type: 'MemberRemoved', data: { appId, email: bo, by: ana } }]);
      spec
        .given([added(ana)])
        .when(remove(ana))
        .thenThrows('invalid_transition');
      spec
        .given([added(ana), added(bo, 'member')])
        .when(remove(ana, bo))
        .thenThrows('insufficient_scope');
    });
  });
});
