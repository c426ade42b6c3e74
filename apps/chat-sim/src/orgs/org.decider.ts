import { DomainError } from '@platform/errors';
import { assertNever, type Decider } from '@platform/event-store';
import { evolveOrg, initialOrgState, type OrgEvent, type OrgState } from './org.state';

/** Time and request context arrive with every command; the decider never reads a clock. */
export interface CommandMeta {
  now: Date;
}

export type OrgCommand =
  | { type: 'CreateOrg'; data: { orgId: string; name: string; allowsExternalBusinesses: boolean }; meta: CommandMeta }
  | { type: 'UpdateOrg'; data: { allowsExternalBusinesses: boolean }; meta: CommandMeta };

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
