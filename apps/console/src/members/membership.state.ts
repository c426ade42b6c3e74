/** Who may see and change one app in the console (stream `app-members-<appId>`), and who was invited. */
export type MemberRole = 'owner' | 'member';

export type MembershipEvent =
  | { type: 'MemberAdded'; data: { appId: string; email: string; role: MemberRole; by: string | null } }
  | { type: 'MemberInvited'; data: { appId: string; email: string; tokenHash: string; expiresAt: string; by: string } }
  | { type: 'InvitationAccepted'; data: { appId: string; email: string; tokenHash: string } }
  /** A newer invitation to the same address followed (the MemberInvited after it in the same append). */
  | { type: 'InvitationReplaced'; data: { appId: string; email: string; tokenHash: string; by: string } }
  | { type: 'InvitationWithdrawn'; data: { appId: string; email: string; tokenHash: string; by: string } }
  | { type: 'MemberRoleChanged'; data: { appId: string; email: string; role: MemberRole; by: string } }
  | { type: 'MemberRemoved'; data: { appId: string; email: string; by: string } };

export interface Invitation {
  email: string;
  /** Who sent it: it works only while they are an owner. */
  by: string;
  expiresAt: string;
  accepted: boolean;
  withdrawn: boolean;
  /** Its address was removed from the app after it was sent. */
  predatesRemoval: boolean;
}

export interface MembershipState {
  members: Record<string, MemberRole>;
  /** By token hash. */
  invitations: Record<string, Invitation>;
  /** Each address's newest invitation (token hash): the only one of that address that may be accepted. */
  newestInvitation: Record<string, string>;
}

export const initialMembershipState = (): MembershipState => ({ members: {}, invitations: {}, newestInvitation: {} });

/** The state with one invitation changed (none if the token is unknown to it). */
function updateInvitation(state: MembershipState, tokenHash: string, change: Partial<Invitation>): MembershipState {
  const invitation = state.invitations[tokenHash];
  return invitation ? { ...state, invitations: { ...state.invitations, [tokenHash]: { ...invitation, ...change } } } : state;
}

export function evolveMembership(state: MembershipState, event: MembershipEvent): MembershipState {
  switch (event.type) {
    case 'MemberAdded':
    case 'MemberRoleChanged':
      return { ...state, members: { ...state.members, [event.data.email]: event.data.role } };
    case 'MemberInvited': {
      const { email, tokenHash, expiresAt, by } = event.data;
      return {
        ...state,
        invitations: { ...state.invitations, [tokenHash]: { email, by, expiresAt, accepted: false, withdrawn: false, predatesRemoval: false } },
        // Derived here rather than from InvitationReplaced, so streams written before that event fold the same.
        newestInvitation: { ...state.newestInvitation, [email]: tokenHash },
      };
    }
    case 'InvitationAccepted':
      return updateInvitation(state, event.data.tokenHash, { accepted: true });
    case 'InvitationReplaced':
      // The record of the replacement; the MemberInvited that follows it makes the newer one the address's newest.
      return state;
    case 'InvitationWithdrawn':
      return updateInvitation(state, event.data.tokenHash, { withdrawn: true });
    case 'MemberRemoved': {
      const { [event.data.email]: _removed, ...members } = state.members;
      const invitations = Object.fromEntries(
        Object.entries(state.invitations).map(([hash, i]) => [hash, i.email === event.data.email ? { ...i, predatesRemoval: true } : i]),
      );
      return { ...state, members, invitations };
    }
  }
}
