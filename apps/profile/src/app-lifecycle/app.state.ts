import type { AppStatus, ProfileEvent, VerificationStatus } from '#platform/contracts';

/** Events of the App aggregate (stream `app-<appId>`), as defined in libs/contracts. */
export type AppEvent = Pick<ProfileEvent, 'type' | 'data'> & ProfileEvent;

export interface BusinessProfileFields {
  displayName: string;
  about: string | null;
  websiteUrl: string | null;
  category: string | null;
  avatarMediaId: string | null;
  /** Set with avatarMediaId from the media's facts; never from a request body. */
  avatarObjectKey: string | null;
}

export type AppState =
  | { kind: 'absent' }
  | {
      kind: 'existing';
      appId: string;
      orgId: string;
      handle: string;
      status: AppStatus;
      /** Where reinstatement returns to while suspended. */
      statusBeforeSuspension: AppStatus | null;
      verificationStatus: VerificationStatus;
      dailyQuota: number;
      profile: BusinessProfileFields;
    };

export const initialAppState = (): AppState => ({ kind: 'absent' });

export function evolveApp(state: AppState, event: AppEvent): AppState {
  if (event.type === 'AppCreated') {
    const d = event.data;
    return {
      kind: 'existing',
      appId: d.appId,
      orgId: d.orgId,
      handle: d.handle,
      status: 'sandbox',
      statusBeforeSuspension: null,
      verificationStatus: 'unverified',
      dailyQuota: d.dailyQuota,
      profile: { displayName: d.displayName, about: null, websiteUrl: null, category: null, avatarMediaId: null, avatarObjectKey: null },
    };
  }
  if (state.kind === 'absent') return state;
  switch (event.type) {
    case 'AppStatusChanged':
      return {
        ...state,
        status: event.data.status,
        statusBeforeSuspension: event.data.status === 'suspended' ? event.data.previousStatus : null,
      };
    case 'AppDailyQuotaChanged':
      return { ...state, dailyQuota: event.data.dailyQuota };
    case 'VerificationStatusChanged': {
      // A suspended public_live app whose verification is revoked comes back as internal_live.
      const revokedWhileSuspended = event.data.status === 'revoked' && state.statusBeforeSuspension === 'public_live';
      return {
        ...state,
        verificationStatus: event.data.status,
        statusBeforeSuspension: revokedWhileSuspended ? 'internal_live' : state.statusBeforeSuspension,
      };
    }
    case 'BusinessProfileUpdated': {
      const { appId: _appId, ...profile } = event.data;
      // Events written before avatars existed carry no object key.
      return { ...state, profile: { ...profile, avatarObjectKey: profile.avatarObjectKey ?? null } };
    }
  }
}
