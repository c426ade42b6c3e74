/**
 * What consent answers (users' consent and reply window, opt-in links, simulator settling) and its resources.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { ConsentSource, ConsentStatus } from '../events/consent.events';
import type { EventRef } from '../rpc';

/** The spec's Consent resource. */
export interface ConsentResource {
  appUserId: string;
  status: ConsentStatus;
  source: ConsentSource;
  ref: string | null;
  optedInAt: string;
  optedOutAt: string | null;
  updatedAt: string;
}

/** The spec's Window: open within 24 hours of the user's last message. */
export interface ReplyWindow {
  open: boolean;
  expiresAt: string | null;
}

/** The spec's UserConsent. */
export interface UserConsent {
  appUserId: string;
  consent: ConsentResource;
  window: ReplyWindow;
}

export interface ListConsentsCall {
  appId: string;
  status?: ConsentStatus | null;
  limit: number;
  cursor?: string | null;
}

/** The spec's ConsentPage. */
export interface ConsentPage {
  data: ConsentResource[];
  nextCursor: string | null;
}

export interface CreateOptInLinkCall {
  appId: string;
  ref?: string | null;
  expiresInDays?: number | null;
}

/** The spec's OptInLink. */
export interface OptInLink {
  url: string;
  token: string;
  ref: string | null;
  expiresAt: string;
}

/** The events a simulator call published, and whose consent to answer with (both or neither). */
export interface SettleUserActionsCall {
  events: EventRef[];
  appId?: string;
  userId?: string;
}

/** The consent a user action left (null without app and user, or when the user has none), and the consent events it caused. */
export interface SettledUserActions {
  appUserId: string | null;
  consent: ConsentResource | null;
  events: EventRef[];
}

export interface ConsentOperations {
  /** GET /users/{appUserId}: the consent and the reply window. */
  'users.get': { request: { appId: string; appUserId: string }; reply: UserConsent };
  /** GET /consents: one page of a snapshot, most recently changed first. */
  'consents.list': { request: ListConsentsCall; reply: ConsentPage };
  /** POST /optin-links: a signed, stateless link (D16). */
  'optinLinks.create': { request: CreateOptInLinkCall; reply: OptInLink };
  /** The app a link points at, read as the chat product would (not a proof of validity). */
  'optinLinks.describe': { request: { token: string }; reply: { appId: string } };
  /** Returns once consent has applied a simulator call's events, with the resulting consent; the platform's refusal is thrown. */
  'userActions.settle': { request: SettleUserActionsCall; reply: SettledUserActions };
}
