import type { EntityManager } from '@mikro-orm/postgresql';
import { storedEventGuard } from '#platform/event-store';
import type { DomainEvent, ProfileEvent } from '#platform/contracts';
import { AppView } from '../persistence/app-view.entity';

const isAppEvent = storedEventGuard<ProfileEvent>({
  AppCreated: true,
  AppStatusChanged: true,
  AppDailyQuotaChanged: true,
  VerificationStatusChanged: true,
  BusinessProfileUpdated: true,
});

/** Inline projection of the App stream into profile.apps (same transaction as the append). */
export async function projectAppEvents(em: EntityManager, events: DomainEvent[]): Promise<void> {
  for (const stored of events) {
    if (!isAppEvent(stored)) continue;
    const event = stored;
    const at = new Date(stored.occurredAt);
    if (event.type === 'AppCreated') {
      const d = event.data;
      em.create(AppView, {
        appId: d.appId,
        orgId: d.orgId,
        handle: d.handle,
        status: 'sandbox',
        verificationStatus: 'unverified',
        verifiedAt: null,
        dailyQuota: d.dailyQuota,
        displayName: d.displayName,
        about: null,
        websiteUrl: null,
        category: null,
        avatarMediaId: null,
        creatorEmail: d.creatorEmail,
        createdAt: at,
        updatedAt: at,
        version: stored.streamVersion,
      });
      continue;
    }
    const view = await em.findOneOrFail(AppView, { appId: event.data.appId });
    switch (event.type) {
      case 'AppStatusChanged':
        view.status = event.data.status;
        break;
      case 'AppDailyQuotaChanged':
        view.dailyQuota = event.data.dailyQuota;
        break;
      case 'VerificationStatusChanged':
        view.verificationStatus = event.data.status;
        view.verifiedAt = event.data.status === 'verified' ? at : event.data.status === 'revoked' ? view.verifiedAt : null;
        break;
      case 'BusinessProfileUpdated':
        view.displayName = event.data.displayName;
        view.about = event.data.about;
        view.websiteUrl = event.data.websiteUrl;
        view.category = event.data.category;
        view.avatarMediaId = event.data.avatarMediaId;
        view.avatarObjectKey = event.data.avatarObjectKey ?? null;
        break;
    }
    view.updatedAt = at;
    view.version = stored.streamVersion;
  }
  await em.flush();
}
