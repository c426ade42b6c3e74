import type { ConsentEvent as PublishedConsentEvent, ConsentReason, ConsentSource, ConsentStatus } from '#platform/contracts';

/** Private: the user opened an opt-in link of the app (Allow is valid only after an open). Not published. */
export interface OptInLinkOpenRecorded {
  type: 'OptInLinkOpenRecorded';
  data: { appUserId: string; userId: string; linkId: string };
}

/** Events of one user's consent to one app (stream `consent-<appId>:<appUserId>`). */
export type ConsentEvent = PublishedConsentEvent | OptInLinkOpenRecorded;

export interface ConsentSnapshot {
  status: ConsentStatus;
  source: ConsentSource;
  ref: string | null;
  reason: ConsentReason | null;
  optedInAt: string;
  optedOutAt: string | null;
}

export type ConsentState =
  | { kind: 'unknown' }
  | {
      kind: 'known';
      appUserId: string;
      userId: string;
      /** null until the user first opts in. */
      consent: ConsentSnapshot | null;
      /** Links the user opened, most recent last (bounded). */
      openedLinks: string[];
      tester: 'none' | 'invited' | 'accepted';
    };

/** How many opened links a consent remembers; Allow normally follows its open within minutes. */
export const OPENED_LINKS_KEPT = 20;

export const initialConsentState = (): ConsentState => ({ kind: 'unknown' });

export function evolveConsent(state: ConsentState, event: ConsentEvent): ConsentState {
  if (event.type === 'AppUserIdentified') {
    return { kind: 'known', appUserId: event.data.appUserId, userId: event.data.userId, consent: null, openedLinks: [], tester: 'none' };
  }
  if (state.kind === 'unknown') return state;
  switch (event.type) {
    case 'ConsentUpdated': {
      const d = event.data;
      return { ...state, consent: { status: d.status, source: d.source, ref: d.ref, reason: d.reason, optedInAt: d.optedInAt, optedOutAt: d.optedOutAt } };
    }
    case 'OptInLinkOpenRecorded':
      return { ...state, openedLinks: [...state.openedLinks.filter((id) => id !== event.data.linkId), event.data.linkId].slice(-OPENED_LINKS_KEPT) };
    case 'TesterInvited':
      return { ...state, tester: 'invited' };
    case 'TesterAccepted':
      return { ...state, tester: 'accepted' };
  }
}
