import { APP_STATUSES, VERIFICATION_STATUSES, type AppStatus, type VerificationStatus } from '../app-status';
import { int, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

/** Events of the App aggregate, published on `profile.events`, keyed by appId. */
export interface AppCreated {
  type: 'AppCreated';
  data: {
    appId: string;
    orgId: string;
    handle: string;
    displayName: string;
    creatorEmail: string | null;
    dailyQuota: number;
  };
}
export interface AppStatusChanged {
  type: 'AppStatusChanged';
  data: { appId: string; status: AppStatus; previousStatus: AppStatus; reason: string | null };
}
export interface AppDailyQuotaChanged {
  type: 'AppDailyQuotaChanged';
  data: { appId: string; dailyQuota: number };
}
export interface VerificationStatusChanged {
  type: 'VerificationStatusChanged';
  data: { appId: string; status: VerificationStatus; previousStatus: VerificationStatus };
}
export interface BusinessProfileUpdated {
  type: 'BusinessProfileUpdated';
  data: {
    appId: string;
    displayName: string;
    about: string | null;
    websiteUrl: string | null;
    category: string | null;
    avatarMediaId: string | null;
    /** Where the avatar's bytes are in the media bucket (null without an avatar). */
    avatarObjectKey: string | null;
  };
}
export type ProfileEvent = AppCreated | AppStatusChanged | AppDailyQuotaChanged | VerificationStatusChanged | BusinessProfileUpdated;

export const PROFILE_EVENT_SCHEMAS: Record<ProfileEvent['type'], JsonSchema> = {
  AppCreated: record({
    appId: str('The app (`app_…`).'),
    orgId: str('Organization that owns the app (`org_…`).'),
    handle: str('Public handle of the business profile, unique.'),
    displayName: str('Display name of the business, 2-60 characters.'),
    creatorEmail: nullableStr('Who created the app; notified when an endpoint is disabled.'),
    dailyQuota: int('Accepted messages per UTC day (D8).', { minimum: 0 }),
  }),
  AppStatusChanged: record({
    appId: str('The app.'),
    status: oneOf('Status after the move (D18).', APP_STATUSES),
    previousStatus: oneOf('Status before the move.', APP_STATUSES),
    reason: nullableStr('Why, as the operator gave it, or verification_revoked.'),
  }),
  AppDailyQuotaChanged: record({
    appId: str('The app.'),
    dailyQuota: int('New accepted-messages-per-UTC-day quota.', { minimum: 0 }),
  }),
  VerificationStatusChanged: record({
    appId: str('The app.'),
    status: oneOf('Verification status after the move (D19).', VERIFICATION_STATUSES),
    previousStatus: oneOf('Verification status before.', VERIFICATION_STATUSES),
  }),
  BusinessProfileUpdated: record(
    {
      appId: str('The app.'),
      displayName: str('Display name, 2-60 characters.'),
      about: nullableStr('Free text about the business.'),
      websiteUrl: nullableStr('Website (absolute http(s) URL).'),
      category: nullableStr('Business category.'),
      avatarMediaId: nullableStr('Ready image used as the avatar (`med_…`).'),
      avatarObjectKey: nullableStr("Key of the avatar's object in the media bucket."),
    },
    ['avatarObjectKey'],
  ),
};
