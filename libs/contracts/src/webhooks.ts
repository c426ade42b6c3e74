import type { AppStatus } from './app-status';
import type { ErrorCode } from './error-codes';
import type { ConsentReason, ConsentSource, ConsentStatus } from './events/consent.events';
import type { MessageFailureReason, MessageMediaFile } from './events/messaging.events';
import type { TemplateStatus } from './templates';

/** The public event types (spec, Events): what an endpoint can subscribe to. */
export const PUBLIC_EVENT_TYPES = ['message.received', 'message.status', 'consent.updated', 'app.status_changed', 'template.status', 'webhook.test'] as const;
export type PublicEventType = (typeof PUBLIC_EVENT_TYPES)[number];

/** The types `platformctl listen` can receive: all but webhook.test, which goes to one endpoint only. */
export const LISTEN_EVENT_TYPES = [
  'message.received',
  'message.status',
  'consent.updated',
  'app.status_changed',
  'template.status',
] as const satisfies readonly PublicEventType[];
export type ListenEventType = (typeof LISTEN_EVENT_TYPES)[number];

/**
 * The types the events API lists and an endpoint recovery sends again: every public type but
 * webhook.test, which is a probe of one endpoint rather than something that happened to the app.
 */
export type AppEventType = Exclude<PublicEventType, 'webhook.test'>;
export const APP_EVENT_TYPES: readonly AppEventType[] = PUBLIC_EVENT_TYPES.filter((type): type is AppEventType => type !== 'webhook.test');

/** Limits and timings of webhooks (spec Limits, architecture section 6 and D20–D26). */
export const WEBHOOKS = {
  maxEndpointsPerApp: 5,
  /** The old secret keeps signing beside the new one this long after a rotation. */
  rotationOverlapMs: 24 * 3600 * 1000,
  handshakeTimeoutMs: 5000,
  answerTimeoutMs: 10_000,
  firstRetryDelayMs: 10_000,
  maxRetryDelayMs: 3600 * 1000,
  /** A delivery is retried for this long after it was created, then failed. */
  retryWindowMs: 24 * 3600 * 1000,
  /** An endpoint whose deliveries all failed this long is disabled (D25). */
  disableAfterFailingMs: 3 * 24 * 3600 * 1000,
  /** A delivery can be replayed this long after its event (D24); the payload itself is kept for eventRetentionMs. */
  payloadRetentionMs: 7 * 24 * 3600 * 1000,
  /** Every public event of an app is kept this long for GET /events, with its payload (ADR 0223). */
  eventRetentionMs: 30 * 24 * 3600 * 1000,
  /** POST /webhooks/{id}/recover reaches this far back (ADR 0224). */
  recoverWindowMs: 7 * 24 * 3600 * 1000,
  /** A finished delivery, its attempts and its event's record are kept this long for the log, then deleted. */
  recordRetentionMs: 30 * 24 * 3600 * 1000,
  verifyTokenPattern: /^[\x20-\x7e]{8,128}$/,
  maxUrlLength: 2048,
} as const;

/** The 422 refusals of a webhook URL (spec, Endpoint registration 4; architecture section 6). */
export const WEBHOOK_URL_REFUSAL_CODES = [
  'webhook_url_https_required',
  'webhook_url_port_not_allowed',
  'webhook_url_blocked_address',
  'webhook_url_blocked_host',
  'webhook_url_dns_failed',
  'webhook_url_invalid_url',
] as const satisfies readonly ErrorCode[];

/** Endpoint states (D20). */
export const WEBHOOK_ENDPOINT_STATES = ['pending_verification', 'enabled', 'disabled'] as const;
export type WebhookEndpointState = (typeof WEBHOOK_ENDPOINT_STATES)[number];

/** Delivery states (D23). */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** The envelope of every public event, byte for byte what a receiver gets (spec, Events). */
export interface PublicEventEnvelope<T extends PublicEventType = PublicEventType, D = PublicEventData[T]> {
  /** `evt_…`; the same across retries and replays; derived from the domain event, so a replayed topic mints no new ids. */
  id: string;
  type: T;
  apiVersion: string;
  /** Unix seconds. */
  created: number;
  appId: string;
  data: D;
}

export interface PublicEventData {
  'message.received': {
    id: string;
    from: string;
    type: string;
    text: string | null;
    media: MessageMediaFile[];
    context?: { messageId: string };
    timestamp: string;
  };
  'message.status': {
    id: string;
    appUserId: string;
    status: 'sent' | 'delivered' | 'read' | 'failed';
    timestamp: string;
    clientReference?: string;
    /** Why it failed (D4); only with status failed. */
    reason?: MessageFailureReason;
  };
  'consent.updated': { appUserId: string; status: ConsentStatus; source?: ConsentSource; ref?: string; reason?: ConsentReason };
  'app.status_changed': { status: AppStatus; previousStatus: AppStatus; reason?: string };
  /** A template version was submitted, approved or rejected (architecture section 13); `reason` is the reviewer's, when given. */
  'template.status': { id: string; name: string; language: string; status: TemplateStatus; reason?: string; version: number };
  /** D26. */
  'webhook.test': { message: string; subscriptionId: string; nonce: string };
}
