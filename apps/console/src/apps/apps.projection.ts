import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type EventOf } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';

/** An app's creator (its `creatorEmail`) is its first owner (DESIGN section 11). */
async function recordApp(em: EntityManager, event: EventOf<'AppCreated'>): Promise<void> {
  const d = event.data;
  const at = new Date(event.occurredAt);
  await em.execute(
    `insert into console.apps (app_id, org_id, handle, display_name, created_at) values (?, ?, ?, ?, ?)
     on conflict (app_id) do nothing`,
    [d.appId, d.orgId, d.handle, d.displayName, at],
  );
  if (d.creatorEmail) {
    await em.execute(`insert into console.members (app_id, email, role, added_at) values (?, ?, 'owner', ?) on conflict do nothing`, [
      d.appId,
      d.creatorEmail.toLowerCase(),
      at,
    ]);
  }
}

/** The apps and their first owners, from profile.events. */
export const appsConsumer: ConsumerSpec = {
  name: 'apps',
  topics: [TOPICS.profileEvents],
  handlers: { AppCreated: recordApp },
};

/** The addresses of an app's owners, in the order they became owners. */
export async function ownersOf(em: EntityManager, appId: string): Promise<string[]> {
  const rows = await em.execute<{ email: string }[]>(`select email from console.members where app_id = ? and role = 'owner' order by added_at, email`, [appId]);
  return rows.map((row) => row.email);
}
