import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type EventOf } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';
import { OrgView } from '../persistence/org-view.entity';

async function upsertOrg(em: EntityManager, event: EventOf<'OrgCreated' | 'OrgUpdated'>): Promise<void> {
  const d = event.data;
  await em.upsert(OrgView, { orgId: d.orgId, name: d.name, allowsExternalBusinesses: d.allowsExternalBusinesses });
}

/** Keeps profile.orgs from the chat product's org events. */
export const orgsConsumer: ConsumerSpec = {
  name: 'orgs',
  topics: [TOPICS.chatUserEvents],
  handlers: { OrgCreated: upsertOrg, OrgUpdated: upsertOrg },
};
