import type { UserStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveUser, initialUserState, type UserEvent, type UserState } from './user.state';

export type UserCommand =
  Command<'CreateUser', { userId: string; orgId: string; email: string; displayName: string | null }> | Command<'ChangeUserStatus', { status: UserStatus }>;

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  if (command.type === 'CreateUser') {
    if (state.kind !== 'absent') throw new DomainError('invalid_transition', 'The user exists already.');
    const d = command.data;
    return [{ type: 'UserCreated', data: { userId: d.userId, orgId: d.orgId, email: d.email.toLowerCase(), displayName: d.displayName, status: 'active' } }];
  }
  if (state.kind === 'absent') throw new DomainError('not_found', 'No such user.');
  switch (command.type) {
    case 'ChangeUserStatus': {
      const target = command.data.status;
      if (target === state.status) return [];
      // Account deletion is final: a deleted account never comes back.
      if (state.status === 'deleted') throw new DomainError('invalid_transition', `A deleted account cannot become ${target}.`);
      return [{ type: 'UserStatusChanged', data: { userId: state.userId, orgId: state.orgId, status: target, previousStatus: state.status } }];
    }
    default:
      return assertNever(command);
  }
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: initialUserState,
  decide: decideUser,
  evolve: evolveUser,
};
