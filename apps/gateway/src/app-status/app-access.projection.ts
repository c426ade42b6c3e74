import type { EntityManager } from '@mikro-orm/postgresql';
import { TOPICS, type DomainEvent } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';

/** gateway.app_access from profile.events; stale or repeated events never move a row backwards. */
export const appAccessConsumer: ConsumerSpec = {
  name: 'app-access',
  topics: [TOPICS.profileEvents],
  handlers: {
    AppCreated: async (em, event) => {
      const d = event.data;
      await em.execute(`insert into gateway.app_access (app_id, org_id, status, version) values (?, ?, 'sandbox', ?) on conflict (app_id) do nothing`, [
        d.appId,
        d.orgId,
        event.streamVersion,
      ]);
    },
    AppStatusChanged: async (em, event) => {
      const d = event.data;
      await em.execute(`update gateway.app_access set status = ?, version = ? where app_id = ? and version < ?`, [
        d.status,
        event.streamVersion,
        d.appId,
        event.streamVersion,
      ]);
    },
    // Other app events still advance the version, so waiters on any app change are released.
    AppDailyQuotaChanged: bumpVersion,
    VerificationStatusChanged: bumpVersion,
    BusinessProfileUpdated: bumpVersion,
  },
};

async function bumpVersion(em: EntityManager, event: DomainEvent): Promise<void> {
  const appId = (event.data as { appId: string }).appId;
  await em.execute(`update gateway.app_access set version = ? where app_id = ? and version < ?`, [event.streamVersion, appId, event.streamVersion]);
}
