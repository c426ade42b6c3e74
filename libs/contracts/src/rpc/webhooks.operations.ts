/**
 * What the webhook dispatcher answers (endpoints, deliveries, listen sessions) and its resources.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { AppEventType, ListenEventType, PublicEventEnvelope, PublicEventType, WebhookDeliveryStatus, WebhookEndpointState } from '../webhooks';

export interface WebhookEndpointRef {
  appId: string;
  endpointId: string;
}

/** The spec's WebhookEndpoint (D20); the secret is never part of it. */
export interface WebhookEndpoint {
  id: string;
  url: string;
  events: PublicEventType[];
  state: WebhookEndpointState;
  createdAt: string;
  updatedAt: string;
  verifiedAt: string | null;
  disabledAt: string | null;
  lastVerificationError: string | null;
}

/** The spec's WebhookEndpointWithSecret: the endpoint just added, with its signing secret (sealed on the wire). */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  secret: string;
}

export interface CreateWebhookEndpointCall {
  appId: string;
  url: string;
  /** Sealed on the wire. */
  verifyToken: string;
  events: PublicEventType[];
}

export interface UpdateWebhookEndpointCall extends WebhookEndpointRef {
  url?: string;
  /** Required with a new url (the dispatcher refuses without); sealed on the wire. */
  verifyToken?: string;
  events?: PublicEventType[];
}

/** The spec's WebhookDelivery (D23). */
export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: PublicEventType;
  subscriptionId: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  failedAt: string | null;
}

/** One header of a delivery request, spelled and valued as sent. */
export interface WebhookRequestHeader {
  name: string;
  value: string;
}

/** One attempt of a delivery, as the console's delivery log shows it. */
export interface WebhookDeliveryAttempt {
  attempt: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  /** What came of it (the dispatcher's outcome: delivered, retry, failed, abandoned). */
  outcome: string;
  responseStatus: number | null;
  error: string | null;
  /**
   * Every header of the request in the order sent, signature headers included (never a secret);
   * null when no request was made (held, refused) or 7 days after the attempt (ADR 0220).
   */
  requestHeaders: WebhookRequestHeader[] | null;
  /** The response body's first 2 KiB as text (invalid UTF-8 replaced); null without a response or after 7 days. */
  responseExcerpt: string | null;
}

/** One delivery of the app with the body it sends and its attempts, first first (the console's delivery detail). */
export interface WebhookDeliveryDetail {
  delivery: WebhookDelivery;
  /** The event body exactly as sent; null once no longer kept (WEBHOOKS.eventRetentionMs). */
  payload: string | null;
  attempts: WebhookDeliveryAttempt[];
}

export interface ListDeliveriesCall {
  appId: string;
  status: WebhookDeliveryStatus | null;
  subscriptionId: string | null;
  limit: number;
  cursor: string | null;
}

/** The spec's WebhookDeliveryPage. */
export interface WebhookDeliveryPage {
  data: WebhookDelivery[];
  nextCursor: string | null;
}

export interface OpenListenCall {
  appId: string;
  keyId: string;
  events: ListenEventType[];
  /** The stream's Last-Event-ID when it resumes: `<sessionId>.<seq>`, already parsed. */
  resume: { sessionId: string; seq: number } | null;
}

/** A listen session opened for a key: its id, signing secret (sealed on the wire), types and the cursor to read after. */
export interface ListenSession {
  sessionId: string;
  secret: string;
  events: ListenEventType[];
  after: number;
}

export interface PollListenCall {
  appId: string;
  sessionId: string;
  after: number;
  limit: number;
  waitMs: number;
}

/** One event of a listen session: its cursor and the exact body a delivery sends. */
export interface ListenEvent {
  seq: number;
  eventId: string;
  type: PublicEventType;
  payload: string;
}

/** An app's webhook deliveries that ended on one UTC day (the console's overview chart). */
export interface DeliveryDayCount {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  delivered: number;
  /** Of `delivered`, those delivered by their first attempt. */
  deliveredFirstAttempt: number;
  failed: number;
}

/** One endpoint's last 24 hours (the console's endpoint health), from the dispatcher's hourly counts. */
export interface EndpointHealthSummary {
  endpointId: string;
  /** Deliveries that ended (delivered or failed) in the window. */
  deliveries: number;
  delivered: number;
  /** Requests sent in the window (held attempts send none). */
  attempts: number;
  /**
   * The 95th percentile of those requests' durations, as the upper bound of the duration bucket it
   * falls in (null: no request, or beyond the last bound, i.e. up to the answer timeout).
   */
  p95Ms: number | null;
  /** True when the 95th percentile is beyond the last bucket bound (the answer timeout). */
  p95BeyondLastBound: boolean;
  /** The latest failed request's error in the window. */
  lastError: { at: string; error: string } | null;
}

/** GET /events (ADR 0223): a page of the app's events of the last 30 days, newest first. */
export interface ListEventsCall {
  appId: string;
  type: AppEventType | null;
  /** ISO date-times, checked by the caller: events made at or after `createdAfter` and before `createdBefore`. */
  createdAfter: string | null;
  createdBefore: string | null;
  limit: number;
  cursor: string | null;
}

/** A page of GET /events: each envelope exactly as its deliveries carry it. */
export interface PublicEventPage {
  data: PublicEventEnvelope[];
  nextCursor: string | null;
}

/** POST /webhooks/{id}/recover (ADR 0224): `since` is an ISO date-time, checked against the clock by the dispatcher. */
export interface RecoverEndpointCall extends WebhookEndpointRef {
  since: string;
}

/** What a recovery created: one delivery per event the endpoint missed. */
export interface EndpointRecovery {
  recovered: number;
}

/** A recovery creates its deliveries before it answers, a batch per short transaction (ADR 0224): callers give a large one this long. */
export const RECOVER_CALL_TIMEOUT_MS = 60_000;

export interface WebhooksOperations {
  /** POST /webhooks: URL check and handshake, then the endpoint with its secret (D20–D22). */
  'endpoints.create': { request: CreateWebhookEndpointCall; reply: WebhookEndpointWithSecret };
  /** GET /webhooks: the app's endpoints, oldest first. */
  'endpoints.list': { request: { appId: string }; reply: { data: WebhookEndpoint[] } };
  'endpoints.get': { request: WebhookEndpointRef; reply: WebhookEndpoint };
  /** PATCH /webhooks/{id}: events, or a new url with its handshake. */
  'endpoints.update': { request: UpdateWebhookEndpointCall; reply: WebhookEndpoint };
  'endpoints.delete': { request: WebhookEndpointRef; reply: { deleted: true } };
  /** POST /webhooks/{id}/verify: the handshake again with the stored verify token (D21b). */
  'endpoints.verify': { request: WebhookEndpointRef & { verifyToken: string }; reply: WebhookEndpoint };
  /** POST /webhooks/{id}/test: a signed webhook.test to this endpoint only (D26). */
  'endpoints.test': { request: WebhookEndpointRef; reply: { deliveryId: string; eventId: string } };
  /** POST /webhooks/{id}/rotate-secret: the new secret (sealed on the wire); the old one signs beside it for 24 hours. */
  'endpoints.rotateSecret': { request: WebhookEndpointRef; reply: { secret: string; previousSecretExpiresAt: string } };
  /** GET /webhook-deliveries: newest first. */
  'deliveries.list': { request: ListDeliveriesCall; reply: WebhookDeliveryPage };
  /** POST /webhook-deliveries/{id}/replay: a new delivery of the same event (D24). */
  'deliveries.replay': { request: { appId: string; deliveryId: string }; reply: WebhookDelivery };
  /** One delivery of the app with its body and attempts (the console's delivery detail); another app's is not_found. */
  'deliveries.attempts': { request: { appId: string; deliveryId: string }; reply: WebhookDeliveryDetail };
  /** Deliveries that ended per UTC day from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`), days without any left out. */
  'deliveries.dailyCounts': { request: { appId: string; fromDay: string; toDay: string }; reply: { data: DeliveryDayCount[] } };
  /** Per endpoint of the app (deleted ones too while they have counts), the current UTC hour and the 23 before it. */
  'endpoints.health': { request: { appId: string }; reply: { data: EndpointHealthSummary[] } };
  /** GET /events: the app's kept events (ADR 0223). */
  'events.list': { request: ListEventsCall; reply: PublicEventPage };
  /** GET /events/{id}: one kept event of the app; another app's, an unknown or an expired one is not_found. */
  'events.get': { request: { appId: string; eventId: string }; reply: PublicEventEnvelope };
  /** POST /webhooks/{id}/recover: a delivery of every kept event since `since` the endpoint missed (ADR 0224). */
  'endpoints.recover': { request: RecoverEndpointCall; reply: EndpointRecovery };
  /** Opens (or reopens) a sandbox key's `platformctl listen` session. */
  'listen.open': { request: OpenListenCall; reply: ListenSession };
  /** Events after a cursor, waiting up to waitMs for the first. */
  'listen.poll': { request: PollListenCall; reply: { events: ListenEvent[] } };
}
