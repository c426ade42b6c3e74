import type { EntityManager } from '@mikro-orm/postgresql';
import type { DomainEvent } from '@platform/contracts';
import { OrgView } from '../persistence/org-view.entity';
import type { OrgEvent } from './org.state';

/** Inline projection of the Org stream into chat_sim.orgs (same transaction as the append). */
export async function projectOrgEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    const event = stored as unknown as OrgEvent & DomainEvent;
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
