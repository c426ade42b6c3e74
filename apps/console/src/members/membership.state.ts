/** Who may see and change one app in the console (stream `app-members-<appId>`), and who was invited. */
export type MemberRole = 'owner' | 'member';

export type MembershipEvent =
  | { type: 'MemberAdded'; data: { appId: string; email: string; role: MemberRole; by: string | null } }
  | { type: 'MemberInvited'; data: { appId: string; email: string; tokenHash: string; expiresAt: string; by: string } }
  | { type: 'InvitationAccepted'; data: { appId: string; email: string; tokenHash: string } }
  | { type: 'MemberRemoved'; data: { appId: string; email: string; by: string } };

export interface Invitation {
  email: string;
  expiresAt: string;
  accepted: boolean;
}

export interface MembershipState {
  members: Record<string, MemberRole>;
  /** By token hash. */
  invitations: Record<string, Invitation>;
}

export const initialMembershipState = (): MembershipState => ({ members: {}, invitations: {} });

export function evolveMembership(state: MembershipState, event: MembershipEvent): MembershipState {
  switch (event.type) {
    case 'MemberAdded':
      return { ...state, members: { ...state.members, [event.data.email]: event.data.role } };
    case 'MemberInvited':
      return {
        ...state,
        invitations: { ...state.invitations, [event.data.tokenHash]: { email: event.data.email, expiresAt: event.data.expiresAt, accepted: false } },
      };
    case 'InvitationAccepted': {
      const invitation = state.invitations[event.data.tokenHash];
      return invitation ? { ...state, invitations: { ...state.invitations, [event.data.tokenHash]: { ...invitation, accepted: true } } } : state;
    }
    case 'MemberRemoved': {
      const { [event.data.email]: _removed, ...members } = state.members;
      return { ...state, members };
    }
  }
}
