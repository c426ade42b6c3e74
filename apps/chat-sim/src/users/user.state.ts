import type { UserCreated, UserStatus, UserStatusChanged } from '#platform/contracts';

/** Events of the User aggregate (stream `user-<userId>`), as defined in libs/contracts (chat.user-events). */
export type UserEvent = UserCreated | UserStatusChanged;

export type UserState =
  | { kind: 'absent' }
  | {
      kind: 'existing';
      userId: string;
      orgId: string;
      /** Lower-cased. */
      email: string;
      displayName: string | null;
      status: UserStatus;
    };

export const initialUserState = (): UserState => ({ kind: 'absent' });

export function evolveUser(state: UserState, event: UserEvent): UserState {
  if (event.type === 'UserCreated') {
    const d = event.data;
    return { kind: 'existing', userId: d.userId, orgId: d.orgId, email: d.email, displayName: d.displayName, status: d.status };
  }
  if (state.kind === 'absent') return state;
  switch (event.type) {
    case 'UserStatusChanged':
      return { ...state, status: event.data.status };
  }
}
