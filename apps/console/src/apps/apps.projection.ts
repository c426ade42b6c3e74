import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type EventOf } from '#platform/contracts';
import type { ConsumerSpec, ServiceRuntime } from '#platform/service-kit';
import { MembersHandler } from '../members/members.handler';

/** The app, as the console lists it. */
async function recordApp(em: EntityManager, event: EventOf<'AppCreated'>): Promise<void> {
  const d = event.data;
  const at = new Date(event.occurredAt);
  await em.execute(
    `insert into console.apps (app_id, org_id, handle, display_name, created_at) values (?, ?, ?, ?, ?)
     on conflict (app_id) do nothing`,
    [d.appId, d.orgId, d.handle, d.displayName, at],
  );
}

/** The apps and their first owners (decided by the membership decider), from profile.events. */
export function appsConsumer(runtime: ServiceRuntime): ConsumerSpec {
  return {
    name: 'apps',
    topics: [TOPICS.profileEvents],
    handlers: {
      AppCreated: async (em, event) => {
        await recordApp(em, event);
        if (event.data.creatorEmail) await MembersHandler.addCreator(runtime, em, event.data.appId, event.data.creatorEmail.toLowerCase(), event);
      },
      // The name people know the app by follows its profile, from the API or the console alike.
      BusinessProfileUpdated: async (em, event) => {
        await em.execute(`update console.apps set display_name = ? where app_id = ?`, [event.data.displayName, event.data.appId]);
      },
    },
  };
}

/** The addresses of an app's owners, in the order they became owners. */
export async function ownersOf(em: EntityManager, appId: string): Promise<string[]> {
  const rows = await em.execute<{ email: string }[]>(`select email from console.members where app_id = ? and role = 'owner' order by added_at, email`, [appId]);
  return rows.map((row) => row.email);
}
