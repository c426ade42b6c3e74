import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveOrg, initialOrgState, type OrgEvent, type OrgState } from './org.state';

export type OrgCommand =
  Command<'CreateOrg', { orgId: string; name: string; allowsExternalBusinesses: boolean }> | Command<'UpdateOrg', { allowsExternalBusinesses: boolean }>;

export function decideOrg(command: OrgCommand, state: OrgState): OrgEvent[] {
  if (command.type === 'CreateOrg') {
    if (state.kind !== 'absent') throw new DomainError('invalid_transition', 'The organization exists already.');
    return [{ type: 'OrgCreated', data: { ...command.data } }];
  }
  if (state.kind === 'absent') throw new DomainError('not_found', 'No such organization.');
  switch (command.type) {
    case 'UpdateOrg': {
      if (command.data.allowsExternalBusinesses === state.allowsExternalBusinesses) return [];
      return [{ type: 'OrgUpdated', data: { orgId: state.orgId, name: state.name, allowsExternalBusinesses: command.data.allowsExternalBusinesses } }];
    }
    default:
      return assertNever(command);
  }
}

export const orgDecider: Decider<OrgState, OrgCommand, OrgEvent> = {
  initialState: initialOrgState,
  decide: decideOrg,
  evolve: evolveOrg,
};
