import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '@platform/contracts';
import { UserView } from '../persistence/user-view.entity';
import type { UserEvent } from './user.state';

/** Inline projection of the User stream into chat_sim.users (same transaction as the append). */
export async function projectUserEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    const event = stored as unknown as UserEvent & DomainEvent;
    const at = new Date(stored.occurredAt);
    switch (event.type) {
      case 'UserCreated':
        em.create(UserView, {
          userId: event.data.userId,
          orgId: event.data.orgId,
          email: event.data.email,
          displayName: event.data.displayName,
          status: event.data.status,
          createdAt: at,
          updatedAt: at,
          version: stored.streamVersion,
        });
        break;
      case 'UserStatusChanged': {
        const view = await em.findOneOrFail(UserView, { userId: event.data.userId });
        view.status = event.data.status;
        view.updatedAt = at;
        view.version = stored.streamVersion;
        break;
      }
    }
  }
  await em.flush();
}
