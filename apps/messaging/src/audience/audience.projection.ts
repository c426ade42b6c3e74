import type { EntityManager } from '@mikro-orm/postgresql';
import { appUserIdFor, TOPICS, type EventOf } from '#platform/contracts';
import type { EventHandlers } from '#platform/kafka';
import type { ConsumerSpec } from '#platform/service-kit';

/** Who the send rules may reach: apps from profile.events. Versions keep a late event from stepping back. */
export const appsConsumer: ConsumerSpec = {
  name: 'apps',
  topics: [TOPICS.profileEvents],
  handlers: {
    AppCreated: async (em, event) => {
      const d = event.data;
      await em.execute(
        `insert into messaging.apps (app_id, org_id, status, daily_quota, version) values (?, ?, 'sandbox', ?, ?) on conflict (app_id) do nothing`,
        [d.appId, d.orgId, d.dailyQuota, event.streamVersion],
      );
    },
    AppStatusChanged: async (em, event) => {
      const d = event.data;
      await em.execute(`update messaging.apps set status = ?, version = ? where app_id = ? and version < ?`, [
        d.status,
        event.streamVersion,
        d.appId,
        event.streamVersion,
      ]);
    },
    AppDailyQuotaChanged: async (em, event) => {
      const d = event.data;
      await em.execute(`update messaging.apps set daily_quota = ?, version = ? where app_id = ? and version < ?`, [
        d.dailyQuota,
        event.streamVersion,
        d.appId,
        event.streamVersion,
      ]);
    },
    // Verification changes move the stream version without touching what messaging keeps.
    VerificationStatusChanged: async (em, event) => {
      await em.execute(`update messaging.apps set version = ? where app_id = ? and version < ?`, [event.streamVersion, event.appId, event.streamVersion]);
    },
    BusinessProfileUpdated: async (em, event) => {
      await em.execute(`update messaging.apps set version = ? where app_id = ? and version < ?`, [event.streamVersion, event.appId, event.streamVersion]);
    },
  },
};

/** Consents, the appUserId ↔ userId map and accepted testers, from consent.events. */
export const consentConsumer: ConsumerSpec = {
  name: 'consent',
  topics: [TOPICS.consentEvents],
  handlers: {
    AppUserIdentified: async (em, event) => {
      const d = event.data;
      await em.execute(`insert into messaging.app_users (app_id, app_user_id, user_id) values (?, ?, ?) on conflict do nothing`, [
        event.appId,
        d.appUserId,
        d.userId,
      ]);
    },
    ConsentUpdated: async (em, event) => {
      const d = event.data;
      await em.execute(`insert into messaging.app_users (app_id, app_user_id, user_id) values (?, ?, ?) on conflict do nothing`, [
        event.appId,
        d.appUserId,
        d.userId,
      ]);
      await em.execute(
        `insert into messaging.consents (app_id, app_user_id, status, version) values (?, ?, ?, ?)
         on conflict (app_id, app_user_id) do update set status = excluded.status, version = excluded.version where messaging.consents.version < excluded.version`,
        [event.appId, d.appUserId, d.status, event.streamVersion],
      );
    },
    TesterAccepted: async (em, event) => {
      const d = event.data;
      await em.execute(`insert into messaging.testers (app_id, user_id) values (?, ?) on conflict do nothing`, [event.appId, d.userId]);
    },
  },
};

/** Orgs and recipients from chat.user-events (their handlers join the user-events consumer, to keep one user's events in order). */
export const audienceHandlers: EventHandlers = {
  OrgCreated: async (em, event) => upsertOrg(em, event),
  OrgUpdated: async (em, event) => upsertOrg(em, event),
  UserCreated: async (em, event) => {
    const d = event.data;
    await em.execute(`insert into messaging.recipients (user_id, org_id, email, status) values (?, ?, ?, ?) on conflict (user_id) do nothing`, [
      d.userId,
      d.orgId,
      d.email,
      d.status,
    ]);
  },
  UserStatusChanged: async (em, event) => {
    const d = event.data;
    await em.execute(`update messaging.recipients set status = ? where user_id = ?`, [d.status, d.userId]);
  },
};

async function upsertOrg(em: EntityManager, event: EventOf<'OrgCreated' | 'OrgUpdated'>): Promise<void> {
  const d = event.data;
  await em.execute(
    `insert into messaging.orgs (org_id, allows_external_businesses) values (?, ?) on conflict (org_id) do update set allows_external_businesses = excluded.allows_external_businesses`,
    [d.orgId, d.allowsExternalBusinesses],
  );
}

/** The appUserId ↔ userId map also learns from users' own messages (chat.user-events). */
export async function recordAppUser(em: EntityManager, appId: string, appUserId: string, userId: string): Promise<void> {
  await em.execute(`insert into messaging.app_users (app_id, app_user_id, user_id) values (?, ?, ?) on conflict do nothing`, [appId, appUserId, userId]);
}

/**
 * What a user's own message (UserSentMessage) changes in the send rules' view: the app user is
 * known and the reply window (D6) runs from it. Returns the message's appUserId.
 */
export async function projectUserMessage(em: EntityManager, appUserIdSecret: string, event: EventOf<'UserSentMessage'>): Promise<string> {
  const d = event.data;
  const appUserId = appUserIdFor(appUserIdSecret, d.appId, d.userId);
  await recordAppUser(em, d.appId, appUserId, d.userId);
  await extendReplyWindow(em, d.appId, appUserId, new Date(event.occurredAt));
  return appUserId;
}

/** D6: the window follows the user's last message; a late older event never shortens it. */
export async function extendReplyWindow(em: EntityManager, appId: string, appUserId: string, sentAt: Date): Promise<void> {
  await em.execute(
    `insert into messaging.windows (app_id, app_user_id, last_user_message_at) values (?, ?, ?)
     on conflict (app_id, app_user_id) do update set last_user_message_at = greatest(messaging.windows.last_user_message_at, excluded.last_user_message_at)`,
    [appId, appUserId, sentAt],
  );
}
