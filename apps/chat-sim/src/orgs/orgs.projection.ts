import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { DomainEvent } from '#platform/contracts';
import { OrgView } from '../persistence/org-view.entity';
import type { OrgEvent } from './org.state';

const isOrgEvent = storedEventGuard<OrgEvent>({
  OrgCreated: true,
  OrgUpdated: true,
});

/** Inline projection of the Org stream into chat_sim.orgs (same transaction as the append). */
export async function projectOrgEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isOrgEvent(stored)) continue;
    const event = stored;
    const at = new Date(stored.occurredAt);
    switch (event.type) {
      case 'OrgCreated':
        em.create(OrgView, {
          orgId: event.data.orgId,
          name: event.data.name,
          allowsExternalBusinesses: event.data.allowsExternalBusinesses,
          createdAt: at,
          updatedAt: at,
          version: stored.streamVersion,
        });
        break;
      case 'OrgUpdated': {
        const view = await em.findOneOrFail(OrgView, { orgId: event.data.orgId });
        view.name = event.data.name;
        view.allowsExternalBusinesses = event.data.allowsExternalBusinesses;
        view.updatedAt = at;
        view.version = stored.streamVersion;
        break;
      }
    }
  }
  await em.flush();
}
