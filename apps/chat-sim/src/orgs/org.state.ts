import type { OrgCreated, OrgUpdated } from '#platform/contracts';

/** Events of the Org aggregate (stream `org-<orgId>`), as defined in libs/contracts (chat.user-events). */
export type OrgEvent = OrgCreated | OrgUpdated;

export type OrgState =
  | { kind: 'absent' }
  | {
      kind: 'existing';
      orgId: string;
      name: string;
      /** Whether public_live apps of other organizations may reach its users. */
      allowsExternalBusinesses: boolean;
    };

export const initialOrgState = (): OrgState => ({ kind: 'absent' });

export function evolveOrg(state: OrgState, event: OrgEvent): OrgState {
  switch (event.type) {
    case 'OrgCreated':
    case 'OrgUpdated':
      // Both carry the whole org.
      return { kind: 'existing', orgId: event.data.orgId, name: event.data.name, allowsExternalBusinesses: event.data.allowsExternalBusinesses };
  }
}
