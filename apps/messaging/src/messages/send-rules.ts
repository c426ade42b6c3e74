import type { AppStatus, ChatMessageType, ConsentStatus, KeyEnvironment, MediaKind, UserStatus } from '@platform/contracts';
import { DomainError } from '@platform/errors';

/** DESIGN D7: business-initiated messages per (app, user) in any rolling 24 h, outside the window. */
export const BUSINESS_INITIATED_CAP = 3;

/** A media file as messaging's projection of media.events knows it. */
export type MediaFacts =
  | { found: false }
  | { found: true; kind: MediaKind; status: 'pending_upload' | 'ready' | 'invalid'; mimeType: string; fileName: string; size: number };

/**
 * What the send rules look at, loaded by the handler from messaging's projections. The rules are
 * pure: the same facts always give the same verdict (DESIGN section 5).
 */
export interface SendFacts {
  keyEnvironment: KeyEnvironment;
  app: { appId: string; orgId: string; status: AppStatus; dailyQuota: number };
  addressedBy: 'appUserId' | 'email';
  /** null: no such appUserId (or email) for this app. */
  recipient: null | { userId: string; appUserId: string; orgId: string; status: UserStatus; orgAllowsExternalBusinesses: boolean };
  isAcceptedTester: boolean;
  consent: ConsentStatus | null;
  /** null for text messages. */
  media: MediaFacts | null;
  windowOpen: boolean;
  businessInitiatedLast24h: number;
  acceptedToday: number;
}

const MEDIA_TYPE_KINDS: Record<Exclude<ChatMessageType, 'text'>, MediaKind[]> = {
  image: ['image'],
  video: ['video'],
  audio: ['audio'],
  file: ['document', 'other'],
};

/** DESIGN D9: the send checks in their order; the first that fails is the answer. Returns whether the send is business-initiated. */
export function checkSend(type: ChatMessageType, facts: SendFacts): { businessInitiated: boolean } {
  const { app, recipient } = facts;
  const email = facts.addressedBy === 'email';
  if (email && !(app.status === 'internal_live' && facts.keyEnvironment === 'live')) {
    throw new DomainError('email_addressing_not_allowed', 'Email addressing needs an internal_live app and a live key.');
  }
  if (!recipient) throw new DomainError('recipient_not_found');
  if (email && recipient.orgId !== app.orgId) throw new DomainError('email_addressing_not_allowed', "Email addressing reaches only the app's own organization.");
  if (recipient.status !== 'active') throw new DomainError('recipient_unavailable');

  if (facts.keyEnvironment === 'sandbox') {
    if (!facts.isAcceptedTester) throw new DomainError('recipient_not_tester');
  } else if (app.status === 'internal_live') {
    if (recipient.orgId !== app.orgId) throw new DomainError('recipient_outside_org');
  } else if (recipient.orgId !== app.orgId && !recipient.orgAllowsExternalBusinesses) {
    throw new DomainError('recipient_org_blocks_businesses');
  }

  if (facts.consent !== 'opted_in') throw new DomainError('consent_required');

  if (type !== 'text') {
    const media = facts.media;
    if (!media || !media.found) throw DomainError.invalid([{ field: 'mediaId', issue: 'no such media for this app' }]);
    if (!MEDIA_TYPE_KINDS[type].includes(media.kind)) {
      throw DomainError.invalid([{ field: 'mediaId', issue: `is ${media.kind === 'other' ? 'a file' : `a ${media.kind}`}; a ${type} message needs ${MEDIA_TYPE_KINDS[type].join(' or ')}` }]);
    }
    if (media.status === 'pending_upload') throw new DomainError('media_not_uploaded');
    if (media.status === 'invalid') throw new DomainError('media_invalid');
  }

  const businessInitiated = !facts.windowOpen;
  if (businessInitiated && facts.businessInitiatedLast24h >= BUSINESS_INITIATED_CAP) throw new DomainError('business_initiated_cap');
  if (facts.acceptedToday >= app.dailyQuota) throw new DomainError('daily_quota_exceeded');
  return { businessInitiated };
}
