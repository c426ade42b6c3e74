import { assertNever, type Command, type Decider } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { evolveMembership, initialMembershipState, type Invitation, type MembershipEvent, type MembershipState } from './membership.state';

/** An invitation link works for 7 days, once. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** Invitations waiting for an answer per app: enough for a team, too few to spam with. */
export const MAX_PENDING_INVITATIONS = 20;

export type MembershipCommand =
  /** The app was created (profile.events): its creatorEmail becomes its first owner. */
  | Command<'AddCreator', { appId: string; email: string }>
  /** `by` (signed in) invites `email` as a member; the link carries the token of `tokenHash`. */
  | Command<'InviteMember', { appId: string; email: string; tokenHash: string; by: string }>
  /** The invitation link was followed by someone proving the address it was sent to. */
  | Command<'AcceptInvitation', { appId: string; tokenHash: string }>
  /** `by` ends the invitation waiting for `email`: its link stops working. */
  | Command<'WithdrawInvitation', { appId: string; email: string; by: string }>
  | Command<'MakeOwner', { appId: string; email: string; by: string }>
  | Command<'RemoveMember', { appId: string; email: string; by: string }>;

function requireOwner(state: MembershipState, by: string): void {
  const role = state.members[by];
  // Someone who is no member must not learn the app exists (404, as in the API).
  if (!role) throw new DomainError('not_found', 'No such app.');
  if (role !== 'owner') throw new DomainError('insufficient_scope', 'Only owners change who is a member.');
}

/** The address's invitations that nothing has ended yet (one, unless the stream predates replacements). */
function waitingInvitations(state: MembershipState, email: string, now: Date): string[] {
  return Object.entries(state.invitations)
    .filter(([, i]) => i.email === email && !i.accepted && !i.withdrawn && !i.predatesRemoval && now.getTime() < new Date(i.expiresAt).getTime())
    .map(([hash]) => hash);
}

/** Why an invitation cannot be accepted now, in the words its refusal page shows; null if it can. */
function whyNotAcceptable(state: MembershipState, tokenHash: string, invitation: Invitation, now: Date): string | null {
  if (invitation.accepted) return 'This invitation was accepted already. Sign in with your email address to open the app.';
  if (invitation.withdrawn) return 'An owner of the app withdrew this invitation. Ask them for a new one if you still need access.';
  if (state.newestInvitation[invitation.email] !== tokenHash)
    return 'A newer invitation was sent to this address, so this link no longer works. Use the newest one.';
  if (invitation.predatesRemoval) return 'This address was removed from the app after this invitation was sent, so it no longer works.';
  if (now.getTime() >= new Date(invitation.expiresAt).getTime()) return 'This invitation has expired: its link works for 7 days. Ask for a new one.';
  if (state.members[invitation.by] !== 'owner') return 'The person who sent this invitation is no longer an owner of the app, so it no longer works.';
  return null;
}

/**
 * Membership rules: the creator is the first owner; owners invite (7-day single-use links, at most
 * MAX_PENDING_INVITATIONS sent and unanswered; a new one replaces the address's earlier one), withdraw
 * invitations, make members owners and remove members; the last owner cannot be removed. An invitation
 * is accepted only while nothing has ended it (docs/adr/0208-console-invitations-end.md).
 */
export function decideMembership(command: MembershipCommand, state: MembershipState): MembershipEvent[] {
  const now = command.metadata.now;
  switch (command.type) {
    case 'AddCreator': {
      const { appId, email } = command.data;
      return state.members[email] ? [] : [{ type: 'MemberAdded', data: { appId, email, role: 'owner', by: null } }];
    }
    case 'InviteMember': {
      const { appId, email, tokenHash, by } = command.data;
      requireOwner(state, by);
      if (state.members[email]) throw new DomainError('invalid_transition', `${email} is a member already.`);
      const pending = Object.values(state.invitations).filter((i) => !i.accepted && new Date(i.expiresAt).getTime() > now.getTime());
      if (pending.length >= MAX_PENDING_INVITATIONS) throw new DomainError('invalid_transition', 'Too many invitations are waiting for an answer.');
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS).toISOString();
      const replaced = waitingInvitations(state, email, now).map((earlier): MembershipEvent => ({
        type: 'InvitationReplaced',
        data: { appId, email, tokenHash: earlier, by },
      }));
      return [...replaced, { type: 'MemberInvited', data: { appId, email, tokenHash, expiresAt, by } }];
    }
    case 'AcceptInvitation': {
      const { appId, tokenHash } = command.data;
      const invitation = state.invitations[tokenHash];
      if (!invitation) throw new DomainError('not_found', 'This invitation is not known.');
      const refusal = whyNotAcceptable(state, tokenHash, invitation, now);
      if (refusal) throw new DomainError('invalid_transition', refusal);
      const accepted: MembershipEvent = { type: 'InvitationAccepted', data: { appId, email: invitation.email, tokenHash } };
      // A member already (joined another way): accepting only uses up the link.
      if (state.members[invitation.email]) return [accepted];
      return [accepted, { type: 'MemberAdded', data: { appId, email: invitation.email, role: 'member', by: null } }];
    }
    case 'WithdrawInvitation': {
      const { appId, email, by } = command.data;
      requireOwner(state, by);
      const waiting = waitingInvitations(state, email, now);
      if (waiting.length === 0) throw new DomainError('not_found', `No invitation to ${email} is waiting.`);
      return waiting.map((hash) => ({ type: 'InvitationWithdrawn', data: { appId, email, tokenHash: hash, by } }));
    }
    case 'MakeOwner': {
      const { appId, email, by } = command.data;
      requireOwner(state, by);
      const role = state.members[email];
      if (!role) throw new DomainError('not_found', `${email} is not a member.`);
      if (role === 'owner') throw new DomainError('invalid_transition', `${email} is an owner already.`);
      return [{ type: 'MemberRoleChanged', data: { appId, email, role: 'owner', by } }];
    }
    case 'RemoveMember': {
      const { appId, email, by } = command.data;
      requireOwner(state, by);
      const role = state.members[email];
      if (!role) throw new DomainError('not_found', `${email} is not a member.`);
      if (role === 'owner' && Object.values(state.members).filter((r) => r === 'owner').length === 1) {
        throw new DomainError('invalid_transition', 'The last owner cannot be removed.');
      }
      return [{ type: 'MemberRemoved', data: { appId, email, by } }];
    }
    default:
      return assertNever(command);
  }
}

export const membershipDecider: Decider<MembershipState, MembershipCommand, MembershipEvent> = {
  initialState: initialMembershipState,
  decide: decideMembership,
  evolve: evolveMembership,
};
