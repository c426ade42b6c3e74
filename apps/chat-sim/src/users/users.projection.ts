import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { DomainEvent } from '#platform/contracts';
import { UserView } from '../persistence/user-view.entity';
import type { UserEvent } from './user.state';

const isUserEvent = storedEventGuard<UserEvent>({
  UserCreated: true,
  UserStatusChanged: true,
});

/** Inline projection of the User stream into chat_sim.users (same transaction as the append). */
export async function projectUserEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isUserEvent(stored)) continue;
    const event = stored;
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
