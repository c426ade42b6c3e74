import { assertNever, type Command, type Decider } from '#platform/decider';
import { DomainError } from '#platform/errors';
import { evolveMembership, initialMembershipState, type MembershipEvent, type MembershipState } from './membership.state';

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
  | Command<'RemoveMember', { appId: string; email: string; by: string }>;

function requireOwner(state: MembershipState, by: string): void {
  const role = state.members[by];
  // Someone who is no member must not learn the app exists (404, as in the API).
  if (!role) throw new DomainError('not_found', 'No such app.');
  if (role !== 'owner') throw new DomainError('insufficient_scope', 'Only owners change who is a member.');
}

/**
 * Membership rules: the creator is the first owner; owners invite (7-day single-use links, at most
 * MAX_PENDING_INVITATIONS waiting) and remove members; the last owner cannot be removed.
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
      return [{ type: 'MemberInvited', data: { appId, email, tokenHash, expiresAt, by } }];
    }
    case 'AcceptInvitation': {
      const { appId, tokenHash } = command.data;
      const invitation = state.invitations[tokenHash];
      if (!invitation) throw new DomainError('not_found', 'This invitation is not known.');
      if (invitation.accepted) throw new DomainError('invalid_transition', 'This invitation was accepted already.');
      if (now.getTime() >= new Date(invitation.expiresAt).getTime()) throw new DomainError('invalid_transition', 'This invitation has expired.');
      const accepted: MembershipEvent = { type: 'InvitationAccepted', data: { appId, email: invitation.email, tokenHash } };
      // Invited twice and accepted once already: the first acceptance made the member.
      if (state.members[invitation.email]) return [accepted];
      return [accepted, { type: 'MemberAdded', data: { appId, email: invitation.email, role: 'member', by: null } }];
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
