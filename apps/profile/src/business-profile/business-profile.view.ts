import type { BusinessProfile } from '#platform/contracts';
import type { AppView } from '../persistence/app-view.entity';

/** D17: avatarUrl needs no auth and works for at least an hour after each read (`avatarUrl` is signed per read). */
export function toBusinessProfile(view: AppView, avatarUrl: string | null): BusinessProfile {
  return {
    appId: view.appId,
    handle: view.handle,
    displayName: view.displayName,
    avatarUrl,
    about: view.about,
    websiteUrl: view.websiteUrl,
    domain: domainOf(view.websiteUrl),
    category: view.category,
    verificationStatus: view.verificationStatus,
    verifiedAt: view.verifiedAt ? view.verifiedAt.toISOString() : null,
    updatedAt: view.updatedAt.toISOString(),
  };
}

/** D17: domain is the host of websiteUrl. */
export function domainOf(websiteUrl: string | null): string | null {
  if (!websiteUrl) return null;
  try {
    return new URL(websiteUrl).hostname || null;
  } catch {
    return null;
  }
}
