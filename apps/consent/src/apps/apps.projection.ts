import { TOPICS } from '#platform/contracts';
import type { ConsumerSpec } from '#platform/service-kit';

/** Keeps consent.apps from profile.events: opt-in link URLs carry the app's handle. */
export const appsConsumer: ConsumerSpec = {
  name: 'apps',
  topics: [TOPICS.profileEvents],
  handlers: {
    AppCreated: async (em, event) => {
      const d = event.data;
      await em.execute(`insert into consent.apps (app_id, org_id, handle) values (?, ?, ?) on conflict (app_id) do nothing`, [d.appId, d.orgId, d.handle]);
    },
  },
};
