import type { AppStatus, ChatMessageType, ConsentStatus, KeyEnvironment, MediaKind, SentMessageType, UserStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { renderTemplateForSend, type RenderedTemplate } from '../templates/template.render';
import type { TemplateState } from '../templates/template.state';

/** D7: business-initiated messages per (app, user) in any rolling 24 h, outside the window. */
export const BUSINESS_INITIATED_CAP = 3;

/** D6: the reply window lasts 24 h from the user's last message; D7 counts over the same span. */
export const REPLY_WINDOW_MS = 24 * 3600 * 1000;

/** D6: open while less than 24 h have passed since the user's last message (closed at exactly 24 h). */
export function replyWindowOpen(lastUserMessageAt: Date | null, now: Date): boolean {
  return lastUserMessageAt !== null && now.getTime() < lastUserMessageAt.getTime() + REPLY_WINDOW_MS;
}

/** D7: the business-initiated sends of the rolling 24 h that ends at `now` (one exactly 24 h old no longer counts). */
export function businessInitiatedInLast24h(sentAt: readonly Date[], now: Date): number {
  const since = now.getTime() - REPLY_WINDOW_MS;
  return sentAt.filter((at) => at.getTime() > since && at.getTime() <= now.getTime()).length;
}

/** D8's day: the UTC calendar date, `YYYY-MM-DD`; quotas start again at 00:00 UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** D8: the sends accepted on the UTC day of `now`; a count of another day is a count of none today. */
export function acceptedOnDayOf(usage: DailyUsage, now: Date): number {
  return usage.day === utcDay(now) ? usage.accepted : 0;
}

/** Sends an app had accepted on one UTC day (D8's counter row). */
export interface DailyUsage {
  day: string;
  accepted: number;
}

/** A media file as messaging's projection of media.events knows it. */
export type MediaFacts =
  { found: false } | { found: true; kind: MediaKind; status: 'pending_upload' | 'ready' | 'invalid'; mimeType: string; fileName: string; size: number };

/**
 * What the send rules look at, loaded by the handler from messaging's projections. The rules are
 * pure: the same facts always give the same verdict (architecture section 5).
 */
export interface SendFacts {
  keyEnvironment: KeyEnvironment;
  app: { appId: string; orgId: string; status: AppStatus; dailyQuota: number };
  addressedBy: 'appUserId' | 'email';
  /** null: no such appUserId (or email) for this app. */
  recipient: null | { userId: string; appUserId: string; orgId: string; status: UserStatus; orgAllowsExternalBusinesses: boolean };
  isAcceptedTester: boolean;
  consent: ConsentStatus | null;
  /** null for text and template messages. */
  media: MediaFacts | null;
  /** A template send's template (the app's of the name and language asked for) and the values given; null for other sends. */
  template: { state: TemplateState; variables: Readonly<Record<string, string>> } | null;
  /** D6: when the user last wrote to the app (null: never). */
  lastUserMessageAt: Date | null;
  /** D7: when the app's business-initiated sends to this user were accepted, at least those of the 24 h before now. */
  businessInitiatedSentAt: Date[];
  /** D8: the app's accepted sends on a UTC day, at least on the day of now. */
  dailyUsage: DailyUsage;
}

/** A send's facts but the counts: what D9 checks before D7 and D8, and what no other send of its batch changes. */
export type SendFactsBeforeCounts = Omit<SendFacts, 'businessInitiatedSentAt' | 'dailyUsage'>;

const MEDIA_TYPE_KINDS: Record<Exclude<ChatMessageType, 'text'>, MediaKind[]> = {
  image: ['image'],
  video: ['video'],
  audio: ['audio'],
  file: ['document', 'other'],
};

/** What the checks found: whether the send is business-initiated (D6), and a template send's rendered text. */
export interface SendChecked {
  businessInitiated: boolean;
  rendered: RenderedTemplate | null;
}

/** D9: the send checks in their order; the first that fails is the answer. */
export function checkSend(type: SentMessageType, facts: SendFacts, now: Date): SendChecked {
  const checked = checkSendBeforeCounts(type, facts, now);
  const { businessInitiated } = checked;
  if (businessInitiated && businessInitiatedInLast24h(facts.businessInitiatedSentAt, now) >= BUSINESS_INITIATED_CAP)
    throw new DomainError('business_initiated_cap');
  if (acceptedOnDayOf(facts.dailyUsage, now) >= facts.app.dailyQuota) throw new DomainError('daily_quota_exceeded');
  return checked;
}

/**
 * D9's checks before the counts (D7, D8 come last): addressing, recipient, reach, consent, then the
 * content: media, or a template rendered (ADR 0225: in the media checks' place, so who may be
 * reached is answered first, as for every send). Returns whether the send is business-initiated
 * (D6), which decides whether D7 applies, and a template send's rendered text.
 */
export function checkSendBeforeCounts(type: SentMessageType, facts: SendFactsBeforeCounts, now: Date): SendChecked {
  const { app, recipient } = facts;
  const email = facts.addressedBy === 'email';
  if (email && !(app.status === 'internal_live' && facts.keyEnvironment === 'live')) {
    throw new DomainError('email_addressing_not_allowed', 'Email addressing needs an internal_live app and a live key.');
  }
  if (!recipient) throw new DomainError('recipient_not_found');
  if (email && recipient.orgId !== app.orgId)
    throw new DomainError('email_addressing_not_allowed', "Email addressing reaches only the app's own organization.");
  if (recipient.status !== 'active') throw new DomainError('recipient_unavailable');

  if (facts.keyEnvironment === 'sandbox') {
    if (!facts.isAcceptedTester) throw new DomainError('recipient_not_tester');
  } else if (app.status === 'internal_live') {
    if (recipient.orgId !== app.orgId) throw new DomainError('recipient_outside_org');
  } else if (recipient.orgId !== app.orgId && !recipient.orgAllowsExternalBusinesses) {
    throw new DomainError('recipient_org_blocks_businesses');
  }

  if (facts.consent !== 'opted_in') throw new DomainError('consent_required');

  let rendered: RenderedTemplate | null = null;
  if (type === 'template') {
    rendered = renderTemplateForSend(facts.template?.state ?? { kind: 'absent' }, facts.template?.variables ?? {});
  } else if (type !== 'text') {
    const media = facts.media;
    if (!media || !media.found) throw DomainError.invalid([{ field: 'mediaId', issue: 'no such media for this app' }]);
    if (!MEDIA_TYPE_KINDS[type].includes(media.kind)) {
      throw DomainError.invalid([
        {
          field: 'mediaId',
          issue: `is ${media.kind === 'other' ? 'a file' : `a ${media.kind}`}; a ${type} message needs ${MEDIA_TYPE_KINDS[type].join(' or ')}`,
        },
      ]);
    }
    if (media.status === 'pending_upload') throw new DomainError('media_not_uploaded');
    if (media.status === 'invalid') throw new DomainError('media_invalid');
  }

  return { businessInitiated: !replyWindowOpen(facts.lastUserMessageAt, now), rendered };
}
