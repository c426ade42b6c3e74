import { nullableOneOf, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

export const CONSENT_STATUSES = ['opted_in', 'opted_out', 'blocked'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
export const CONSENT_SOURCES = ['user_initiated', 'profile_allow', 'opt_in_link', 'sandbox_tester'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];
export const CONSENT_REASONS = ['account_deleted'] as const;
export type ConsentReason = (typeof CONSENT_REASONS)[number];

/**
 * Events of the consent aggregate (stream `consent-<appId>:<appUserId>`), published on
 * `consent.events` keyed by `appId:appUserId`, so one user's consent moves stay in order.
 */

/** First sight of a user by an app: the appUserId ↔ userId mapping, for reverse lookup. */
export interface AppUserIdentified {
  type: 'AppUserIdentified';
  data: { appUserId: string; userId: string };
}

/** Any change of a consent; carries the whole consent after the change, so consumers need no state. */
export interface ConsentUpdated {
  type: 'ConsentUpdated';
  data: {
    appUserId: string;
    userId: string;
    status: ConsentStatus;
    previousStatus: ConsentStatus | null;
    source: ConsentSource;
    ref: string | null;
    reason: ConsentReason | null;
    optedInAt: string;
    optedOutAt: string | null;
  };
}

/** The app invited the user as a sandbox tester (the chat product showed the invitation). */
export interface TesterInvited {
  type: 'TesterInvited';
  data: { appUserId: string; userId: string };
}

/** The user accepted: sandbox keys of the app may now reach them. */
export interface TesterAccepted {
  type: 'TesterAccepted';
  data: { appUserId: string; userId: string };
}

export type ConsentEvent = AppUserIdentified | ConsentUpdated | TesterInvited | TesterAccepted;

const appUser = { appUserId: str("The user's id within the app (`u_…`, D2)."), userId: str('The chat user (`usr_…`); never shown to apps.') };

export const CONSENT_EVENT_SCHEMAS: Record<ConsentEvent['type'], JsonSchema> = {
  AppUserIdentified: record(appUser),
  ConsentUpdated: record({
    ...appUser,
    status: oneOf('Consent status after the change.', CONSENT_STATUSES),
    previousStatus: nullableOneOf('Status before; null for the first consent.', CONSENT_STATUSES),
    source: oneOf('How the user opted in (most recent opt-in; kept while opted out or blocked).', CONSENT_SOURCES),
    ref: nullableStr('Ref of the opt-in link, for source opt_in_link.'),
    reason: nullableOneOf('account_deleted when the opt-out comes from the deletion of the account.', CONSENT_REASONS),
    optedInAt: str('When the user last opted in (ISO 8601).'),
    optedOutAt: nullableStr('When the user last stopped or blocked the app since that opt-in (ISO 8601).'),
  }),
  TesterInvited: record(appUser),
  TesterAccepted: record(appUser),
};
