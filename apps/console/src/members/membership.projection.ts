import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '#platform/contracts';
import type { MembershipEvent } from './membership.state';

// Every membership event type (a new one that is missing here does not compile).
const MEMBERSHIP_EVENT_TYPES: Record<MembershipEvent['type'], true> = {
  MemberAdded: true,
  MemberInvited: true,
  InvitationAccepted: true,
  InvitationReplaced: true,
  InvitationWithdrawn: true,
  MemberRoleChanged: true,
  MemberRemoved: true,
};

/** The membership events of a stream, as the event store hands them back. */
export const isMembershipEvent = (event: DomainEvent): event is DomainEvent & MembershipEvent => Object.hasOwn(MEMBERSHIP_EVENT_TYPES, event.type);

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
      case 'InvitationReplaced':
      case 'InvitationWithdrawn':
        await em.execute(`update console.invitations set ended_at = ? where token_hash = ?`, [at, event.data.tokenHash]);
        break;
      case 'MemberRoleChanged':
        await em.execute(`update console.members set role = ? where app_id = ? and email = ?`, [event.data.role, event.data.appId, event.data.email]);
        break;
      case 'MemberRemoved':
        await em.execute(`delete from console.members where app_id = ? and email = ?`, [event.data.appId, event.data.email]);
        // Invitations sent to the address before its removal end with it (as the decider's predatesRemoval).
        await em.execute(`update console.invitations set ended_at = ? where app_id = ? and email = ? and accepted_at is null and ended_at is null`, [
          at,
          event.data.appId,
          event.data.email,
        ]);
        break;
    }
  }
}
