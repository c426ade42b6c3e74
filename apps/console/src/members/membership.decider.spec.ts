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
const withdraw = (email: string, by = ana): MembershipCommand => ({ type: 'WithdrawInvitation', data: { appId, email, by }, metadata: at(now) });
const makeOwner = (email: string, by = ana): MembershipCommand => ({ type: 'MakeOwner', data: { appId, email, by }, metadata: at(now) });
const withdrawn = (email: string, tokenHash = `tok-${email}`, by = ana): MembershipEvent => ({
  type: 'InvitationWithdrawn',
  data: { appId, email, tokenHash, by },
});
const replaced = (email: string, tokenHash: string, by = ana): MembershipEvent => ({ type: 'InvitationReplaced', data: { appId, email, tokenHash, by } });
const removed = (email: string, by = ana): MembershipEvent => ({ type: 'MemberRemoved', data: { appId, email, by } });
const madeOwner = (email: string, by = ana): MembershipEvent => ({ type: 'MemberRoleChanged', data: { appId, email, role: 'owner', by } });
const acceptedBy = (email: string, tokenHash = `tok-${email}`): MembershipEvent[] => [
  { type: 'InvitationAccepted', data: { appId, email, tokenHash } },
  added(email, 'member'),
];
const invitedBy = (email: string, by: string, tokenHash = `tok-${email}`): MembershipEvent => {
  const event = invited(email, tokenHash);
  return event.type === 'MemberInvited' ? { ...event, data: { ...event.data, by } } : event;
};

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
    it("replaces the address's waiting invitation: its link stops working", () => {
      spec
        .given([added(ana), invited(bo, 'tok-1')])
        .when(invite(bo, ana, 'tok-2'))
        .then([replaced(bo, 'tok-1'), invited(bo, 'tok-2')]);
      // Nothing to replace once the earlier one expired or was withdrawn.
      spec
        .given([added(ana), invited(bo, 'tok-1', '2026-04-01T10:00:00.000Z'), invited(cy, 'tok-c'), withdrawn(cy, 'tok-c')])
        .when(invite(bo, ana, 'tok-2'))
        .then([invited(bo, 'tok-2')]);
    });
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

  describe('AcceptInvitation when the invitation ended', () => {
    const refused = (events: MembershipEvent[], tokenHash: string, reason: RegExp) =>
      spec
        .given(events)
        .when(accept(tokenHash))
        .thenThrows('invalid_transition', (error) => expect(error.message).toMatch(reason));

    it('refuses a withdrawn invitation', () => refused([added(ana), invited(bo), withdrawn(bo)], `tok-${bo}`, /withdrew/));
    it("refuses an invitation that is not the address's newest", () => {
      refused([added(ana), invited(bo, 'tok-1'), replaced(bo, 'tok-1'), invited(bo, 'tok-2')], 'tok-1', /newer invitation/);
      // A stream from before replacements were recorded folds the same: the newer invitation wins.
      refused([added(ana), invited(bo, 'tok-1'), invited(bo, 'tok-2')], 'tok-1', /newer invitation/);
      spec
        .given([added(ana), invited(bo, 'tok-1'), replaced(bo, 'tok-1'), invited(bo, 'tok-2')])
        .when(accept('tok-2'))
        .then([{ type: 'InvitationAccepted', data: { appId, email: bo, tokenHash: 'tok-2' } }, added(bo, 'member')]);
    });
    it('refuses an invitation sent before its address was removed from the app', () =>
      refused([added(ana), invited(bo), { type: 'MemberAdded', data: { appId, email: bo, role: 'member', by: ana } }, removed(bo)], `tok-${bo}`, /removed/));
    it('refuses an invitation whose sender is no longer an owner', () => {
      const cyOwner = [added(ana), invited(cy), ...acceptedBy(cy), madeOwner(cy), invitedBy(bo, cy)];
      refused([...cyOwner, removed(cy)], `tok-${bo}`, /no longer an owner/);
      refused([...cyOwner, { type: 'MemberRoleChanged', data: { appId, email: cy, role: 'member', by: ana } }], `tok-${bo}`, /no longer an owner/);
      spec
        .given(cyOwner)
        .when(accept(`tok-${bo}`))
        .then(acceptedBy(bo));
    });
  });

  describe('WithdrawInvitation', () => {
    it("lets an owner withdraw an address's waiting invitation", () =>
      spec
        .given([added(ana), invited(bo)])
        .when(withdraw(bo))
        .then([withdrawn(bo)]));
    it('has nothing to withdraw once it was withdrawn, accepted, expired, or for an address never invited', () => {
      spec
        .given([added(ana), invited(bo), withdrawn(bo)])
        .when(withdraw(bo))
        .thenThrows('not_found');
      spec
        .given([added(ana), invited(bo), ...acceptedBy(bo)])
        .when(withdraw(bo))
        .thenThrows('not_found');
      spec
        .given([added(ana), invited(bo, `tok-${bo}`, '2026-04-01T10:00:00.000Z')])
        .when(withdraw(bo))
        .thenThrows('not_found');
      spec
        .given([added(ana)])
        .when(withdraw(bo))
        .thenThrows('not_found');
    });
    it('hides the app from a non-member (404) and refuses a plain member', () => {
      spec
        .given([added(ana), invited(bo)])
        .when(withdraw(bo, cy))
        .thenThrows('not_found');
      spec
        .given([added(ana), invited(bo), invited(cy), ...acceptedBy(cy)])
        .when(withdraw(bo, cy))
        .thenThrows('insufficient_scope');
    });
  });

  describe('MakeOwner', () => {
    it('lets an owner make a member an owner', () => {
      spec
        .given([added(ana), added(bo, 'member')])
        .when(makeOwner(bo))
        .then([madeOwner(bo)]);
      spec
        .given([added(ana), added(bo)])
        .when(makeOwner(bo))
        .thenThrows('invalid_transition');
      spec
        .given([added(ana)])
        .when(makeOwner(bo))
        .thenThrows('not_found');
      spec
        .given([added(ana), added(bo, 'member')])
        .when(makeOwner(bo, bo))
        .thenThrows('insufficient_scope');
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
