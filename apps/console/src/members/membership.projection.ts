import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import type { MembershipEvent } from './membership.state';

/** The membership events of a stream, as the event store hands them back. */
export const isMembershipEvent = (event: DomainEvent): event is DomainEvent & MembershipEvent =>
  event.type === 'MemberAdded' || event.type === 'MemberInvited' || event.type === 'InvitationAccepted' || event.type === 'MemberRemoved';

/** Keeps console.members and console.invitations in the transaction that appends the events. */
export async function projectMembership(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const event of events.filter(isMembershipEvent)) {
    const at = new Date(event.occurredAt);
    switch (event.type) {
      case 'MemberAdded':
        await em.execute(`insert into console.members (app_id, email, role, added_at) values (?, ?, ?, ?) on conflict do nothing`, [
          event.data.appId,
          event.data.email,
          event.data.role,
          at,
        ]);
        break;
      case 'MemberInvited':
        await em.execute(`insert into console.invitations (token_hash, app_id, email, invited_by, invited_at, expires_at) values (?, ?, ?, ?, ?, ?)`, [
          event.data.tokenHash,
          event.data.appId,
          event.data.email,
          event.data.by,
          at,
          event.data.expiresAt,
        ]);
        break;
      case 'InvitationAccepted':
        await em.execute(`update console.invitations set accepted_at = ? where token_hash = ?`, [at, event.data.tokenHash]);
        break;
      case 'MemberRemoved':
        await em.execute(`delete from console.members where app_id = ? and email = ?`, [event.data.appId, event.data.email]);
        break;
    }
  }
}
