/**
 * Every request/reply operation of every service, with what the caller sends and what the service
 * answers (ADR 0173). The gateway's `RpcClient.call(service, op, …)` and a service's
 * `RpcDispatcher.register(op, …)` are both typed by this map, so a renamed operation or field fails
 * to compile on both sides. Payloads still cross the network: handlers keep their runtime checks,
 * and the types describe what a well-formed caller sends. Replies that are a public API resource
 * are typed as the service builds them; the JSON Schemas in public-api/ are what the API promises.
 * Long because it is one table: every operation of every service, beside its request and reply.
 */
import type { AppStatus, AppStatusAction, VerificationStatus } from './app-status';
import type { ChatMessageType, UserStatus } from './events/chat.events';
import type { ConsentSource, ConsentStatus } from './events/consent.events';
import type { MessageMediaFile } from './events/messaging.events';
import type { MediaKind } from './media';
import type { EventRef } from './rpc';
import type { KeyEnvironment, Scope } from './scopes';
import type { RpcService } from './topics';
import type { ListenEventType, PublicEventType, WebhookDeliveryStatus, WebhookEndpointState } from './webhooks';

// ---------------------------------------------------------------------------------------------
// Answered by every service (service-kit)

/** What a service's clock says, against real time (the test clock's offset). */
export interface ClockReading {
  offsetMs: number;
  now: string;
}

/** Which consumer of the service should have applied which events. */
export interface AwaitAppliedCall {
  /** The consumer's name within the service (`media`, `user-events`, `consent`, …). */
  consumer: string;
  events: EventRef[];
}

export interface CommonOperations {
  /** The service's clock offset and time, so the test clock can wait until every service follows it. */
  'clock.offset': { request: Record<string, never>; reply: ClockReading };
  /** Returns once the named consumer has applied these events (refused with 500 if it does not in time). */
  'events.awaitApplied': { request: AwaitAppliedCall; reply: { applied: true } };
}

// ---------------------------------------------------------------------------------------------
// messaging

export const MESSAGE_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'received', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** POST /messages as the gateway passes it after its own checks (architecture section 3): the validated body and the key's context. */
export interface SendMessageCall {
  appId: string;
  keyEnvironment: KeyEnvironment;
  idempotencyKey: string;
  /** SHA-256 of the canonical body: the same key with another body is 422 idempotency_key_reused. */
  bodyHash: string;
  body: {
    to: { appUserId?: string; email?: string };
    type: ChatMessageType;
    text?: string | null;
    mediaId?: string | null;
    clientReference?: string | null;
  };
}

/** The spec's SendAcceptance (202). */
export interface SendAcceptance {
  id: string;
  status: 'accepted';
  appUserId: string;
  type: ChatMessageType;
  createdAt: string;
  clientReference: string | null;
}

/** A send's answer: the acceptance, and whether it is the replay of an earlier send with the same key. */
export interface SendMessageOutcome {
  acceptance: SendAcceptance;
  replayed: boolean;
}

/** The spec's Message resource, as messaging builds it. */
export interface MessageResource {
  id: string;
  direction: 'outbound' | 'inbound';
  appUserId: string;
  type: ChatMessageType;
  text: string | null;
  media: MessageMediaFile[];
  status: MessageStatus;
  clientReference: string | null;
  createdAt: string;
  deliveredAt: string | null;
  readAt: string | null;
}

export interface MessagingOperations {
  /** POST /messages: decides the send (D9) in a group commit and hands it to the chat product. */
  'messages.send': { request: SendMessageCall; reply: SendMessageOutcome };
  /** Who holds an Idempotency-Key, for a send the gateway refuses before sending it: the holder's replay, or null. */
  'messages.heldKey': { request: Pick<SendMessageCall, 'appId' | 'idempotencyKey' | 'bodyHash'>; reply: { held: SendMessageOutcome | null } };
  /** GET /messages/{id}; another app's message is not_found. */
  'messages.get': { request: { appId: string; messageId: string }; reply: MessageResource };
  /** Returns once messaging's projection of the app is at `version` or later (caughtUp false when it did not get there in time). */
  'apps.awaitVersion': { request: { appId: string; version: number }; reply: { caughtUp: boolean } };
  /** Messages accepted today (UTC) against the app's daily quota (D8), for the console's overview. */
  'apps.quotaUsed': { request: { appId: string }; reply: { day: string; accepted: number } };
}

// ---------------------------------------------------------------------------------------------
// media

/** POST /media as the gateway passes it after validating the body (fileName 1–255, size a positive integer). */
export interface CreateMediaCall {
  appId: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/** The spec's Media resource. */
export interface MediaResource {
  id: string;
  source: 'app' | 'user';
  kind: MediaKind;
  mimeType: string;
  fileName: string;
  size: number;
  status: 'pending_upload' | 'ready';
  url: string | null;
  urlExpiresAt: string | null;
  createdAt: string;
}

/** The spec's UploadInstruction. */
export interface UploadInstruction {
  url: string;
  method: 'PUT';
  headers: Record<string, string>;
  expiresAt: string;
}

/** The spec's CreateMediaResponse. */
export interface CreateMediaResponse {
  media: MediaResource;
  upload: UploadInstruction;
}

/** What a service that uses a media file (messaging for sends, profile for avatars) learns of it, with its events to wait on. */
export type MediaForUse =
  | { found: false; events: EventRef[] }
  | {
      found: true;
      source: 'app' | 'user';
      kind: MediaKind;
      status: 'pending_upload' | 'ready' | 'invalid';
      mimeType: string;
      fileName: string;
      size: number;
      /** Key of the object the file is served from: for a verified upload, its verified copy. */
      objectKey: string;
      events: EventRef[];
    };

export interface MediaOperations {
  /** POST /media: records the pending upload (D14 limit) and returns a presigned PUT. */
  'media.create': { request: CreateMediaCall; reply: CreateMediaResponse };
  /** GET /media/{id}; checks a pending upload first (D12). */
  'media.get': { request: { appId: string; mediaId: string }; reply: MediaResource };
  /** The check on first use (D12) before a send or an avatar: the media's facts and events. */
  'media.prepare': { request: { appId: string; mediaId: string }; reply: MediaForUse };
}

// ---------------------------------------------------------------------------------------------
// profile

/** An app as the admin API's calls see it; `version` is its stream version, to wait for elsewhere. */
export interface AppRecord {
  id: string;
  orgId: string;
  handle: string;
  status: AppStatus;
  verificationStatus: VerificationStatus;
  dailyQuota: number;
  version: number;
}

export interface CreateAppCall {
  orgId: string;
  handle: string;
  displayName: string;
  creatorEmail?: string | null;
}

/** The spec's BusinessProfile resource. */
export interface BusinessProfile {
  appId: string;
  handle: string;
  displayName: string;
  avatarUrl: string | null;
  about: string | null;
  websiteUrl: string | null;
  domain: string | null;
  category: string | null;
  verificationStatus: VerificationStatus;
  verifiedAt: string | null;
  updatedAt: string;
}

/** PATCH /business-profile's body: every field optional, null clears a nullable one. */
export interface BusinessProfilePatch {
  displayName?: string;
  about?: string | null;
  websiteUrl?: string | null;
  category?: string | null;
  avatarMediaId?: string | null;
}

export interface UpdateBusinessProfileCall {
  appId: string;
  patch: BusinessProfilePatch;
  /** media.prepare's answer for `patch.avatarMediaId`, when one is given. */
  avatar?: MediaForUse;
}

export interface ProfileOperations {
  /** Admin POST /apps: creates the app in sandbox for an existing org; a taken handle is 409. */
  'apps.create': { request: CreateAppCall; reply: AppRecord };
  'apps.get': { request: { appId: string }; reply: AppRecord };
  /** Admin status moves (D18). */
  'apps.changeStatus': {
    request: { appId: string; action: AppStatusAction; reason?: string | null };
    reply: { status: AppStatus; previousStatus: AppStatus; version: number };
  };
  /** Admin verification moves (D19); answers the profile after the move. */
  'apps.setVerification': { request: { appId: string; status: VerificationStatus }; reply: { profile: BusinessProfile; version: number } };
  /** Admin PATCH /apps/{id}: the daily quota. */
  'apps.update': { request: { appId: string; dailyQuota?: number }; reply: AppRecord };
  /** GET /business-profile, with an avatar URL signed for this read. */
  'profile.get': { request: { appId: string }; reply: BusinessProfile };
  /** PATCH /business-profile; the avatar is checked against media's facts (D10). */
  'profile.update': { request: UpdateBusinessProfileCall; reply: BusinessProfile };
  /** Whether profile's projection knows the org yet (chat-sim creates orgs). */
  'orgs.exists': { request: { orgId: string }; reply: { exists: boolean } };
}

// ---------------------------------------------------------------------------------------------
// consent

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

// ---------------------------------------------------------------------------------------------
// webhooks (the webhook dispatcher)

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
  /** The attempts of one delivery of the app, first first (the console's delivery log). */
  'deliveries.attempts': { request: { appId: string; deliveryId: string }; reply: { data: WebhookDeliveryAttempt[] } };
  /** Opens (or reopens) a sandbox key's `platformctl listen` session. */
  'listen.open': { request: OpenListenCall; reply: ListenSession };
  /** Events after a cursor, waiting up to waitMs for the first. */
  'listen.poll': { request: PollListenCall; reply: { events: ListenEvent[] } };
}

// ---------------------------------------------------------------------------------------------
// chat-sim (the chat product's simulator)

export interface ChatOrg {
  id: string;
  name: string;
  allowsExternalBusinesses: boolean;
}

export interface ChatUser {
  id: string;
  orgId: string;
  email: string;
  displayName: string | null;
  status: UserStatus;
}

/** What a chat-sim change published: the gateway waits until the platform has taken these in. */
export interface SimOutcome {
  /** The events published on chat.user-events (empty when nothing changed). */
  events: EventRef[];
}

/** A file the simulated user attaches, as the admin API takes it. */
export interface SimMediaUpload {
  fileName: string;
  mimeType: string;
  base64: string;
}

export interface SimSendMessageCall {
  userId: string;
  appId: string;
  type: ChatMessageType;
  text?: string | null;
  media?: SimMediaUpload[];
  /** An app message (`msg_…`) the user replies to. */
  replyTo?: string | null;
}

/** What a simulated user can do to an app from the chat product (admin API /sim/users/{id}/apps/{appId}/{action}). */
export const SIM_APP_ACTIONS = ['allow', 'stop', 'block', 'unblock', 'accept-tester'] as const;
export type SimAppAction = (typeof SIM_APP_ACTIONS)[number];

/** A message in the simulated user's inbox, each file with a download URL good for an hour. */
export interface SimInboxEntry {
  messageId: string;
  type: ChatMessageType;
  text: string | null;
  media: { id: string; fileName: string; mimeType: string; size: number; objectKey: string; url: string }[];
  receivedAt: string;
}

/** An opt-in link acted on by a simulated user. */
export interface SimLinkCall {
  userId: string;
  appId: string;
  token: string;
}

export interface ChatSimOperations {
  /** Admin POST /orgs. */
  'orgs.create': { request: { name: string; allowsExternalBusinesses: boolean }; reply: ChatOrg & SimOutcome };
  /** Admin PATCH /orgs/{id}. */
  'orgs.update': { request: { orgId: string; allowsExternalBusinesses: boolean }; reply: ChatOrg & SimOutcome };
  'orgs.get': { request: { orgId: string }; reply: ChatOrg };
  /** Admin POST /users: a chat product account in an org. */
  'users.create': { request: { orgId: string; email: string; displayName?: string | null }; reply: ChatUser & SimOutcome };
  /** Admin PATCH /users/{id}: the account status (a deletion opts the user out everywhere). */
  'users.update': { request: { userId: string; status: UserStatus }; reply: ChatUser & SimOutcome };
  'users.get': { request: { userId: string }; reply: ChatUser };
  /** The user sends the app a message (files stored in the platform's bucket first). */
  'sim.sendMessage': { request: SimSendMessageCall; reply: SimOutcome & { messageId: string } };
  /** The user's device reports a message delivered or read. */
  'sim.receipt': { request: { userId: string; messageId: string; status: 'delivered' | 'read' }; reply: SimOutcome & { appId: string } };
  /** What the user's inbox holds from the app, oldest first. */
  'sim.inbox': { request: { userId: string; appId: string }; reply: { data: SimInboxEntry[] } };
  /** The user opens an opt-in link (shows the profile; opts nobody in). */
  'sim.openLink': { request: SimLinkCall; reply: SimOutcome };
  /** The user taps Allow on an opt-in link. */
  'sim.allowLink': { request: SimLinkCall; reply: SimOutcome };
  /** The user allows, stops, blocks or unblocks the app, or accepts its tester invitation. */
  'sim.appAction': { request: { userId: string; appId: string; action: SimAppAction }; reply: SimOutcome };
  /** The app's tester invitation is shown to the user. */
  'sim.inviteTester': { request: { userId: string; appId: string }; reply: SimOutcome };
}

// ---------------------------------------------------------------------------------------------
// Answered by the gateway (API keys live in its store; the developer console manages them)

/** An API key as listed: never the key, only the display prefix the admin API gives (D28). */
export interface ApiKeyListing {
  id: string;
  prefix: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** A key just created: the only answer that holds the key itself (sealed on the wire). */
export interface CreatedApiKey {
  id: string;
  key: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
}

export interface CreateApiKeyCall {
  appId: string;
  environment: KeyEnvironment;
  /** Default: every scope. */
  scopes?: Scope[];
  expiresAt?: string | null;
}

export interface GatewayOperations {
  /** A new key (refused with key_limit_reached beyond 2 active per environment). */
  'keys.create': { request: CreateApiKeyCall; reply: CreatedApiKey };
  /** The app's keys, oldest first, revoked ones too. */
  'keys.list': { request: { appId: string }; reply: { data: ApiKeyListing[] } };
  /** Revokes a key at once on every gateway replica (revoking twice is harmless). */
  'keys.revoke': { request: { appId: string; keyId: string }; reply: ApiKeyListing };
}

// ---------------------------------------------------------------------------------------------
// The map and its helpers

/** Each service's operations, by the service's name in RPC_SERVICES. */
export interface RpcOperations {
  messaging: MessagingOperations & CommonOperations;
  consent: ConsentOperations & CommonOperations;
  media: MediaOperations & CommonOperations;
  profile: ProfileOperations & CommonOperations;
  webhooks: WebhooksOperations & CommonOperations;
  'chat-sim': ChatSimOperations & CommonOperations;
  gateway: GatewayOperations & CommonOperations;
}

/** The operations a service answers (for a union of services, those every one of them answers). */
export type RpcOperationName<S extends RpcService> = keyof RpcOperations[S] & string;

/** What the caller of `op` on `S` sends. */
export type RpcRequestOf<S extends RpcService, O extends RpcOperationName<S>> = RpcOperations[S][O] extends { request: infer R } ? R : never;

/** What `op` on `S` answers. */
export type RpcReplyOf<S extends RpcService, O extends RpcOperationName<S>> = RpcOperations[S][O] extends { reply: infer R } ? R : never;

/** Every operation name of every service, as a value (the types are erased at run time). */
type OperationNames = { [S in RpcService]: Record<RpcOperationName<S>, true> };

/**
 * The operations each service must answer, listed so a service can check at start that it registered
 * a handler for every one: a name missing here or left over is a compile error, a handler missing in
 * the service refuses the start (`startNestService`).
 */
export const RPC_OPERATION_NAMES: { [S in RpcService]: readonly RpcOperationName<S>[] } = (() => {
  const common = { 'clock.offset': true, 'events.awaitApplied': true } as const;
  const names: OperationNames = {
    messaging: { ...common, 'messages.send': true, 'messages.heldKey': true, 'messages.get': true, 'apps.awaitVersion': true, 'apps.quotaUsed': true },
    media: { ...common, 'media.create': true, 'media.get': true, 'media.prepare': true },
    profile: {
      ...common,
      'apps.create': true,
      'apps.get': true,
      'apps.changeStatus': true,
      'apps.setVerification': true,
      'apps.update': true,
      'profile.get': true,
      'profile.update': true,
      'orgs.exists': true,
    },
    consent: { ...common, 'users.get': true, 'consents.list': true, 'optinLinks.create': true, 'optinLinks.describe': true, 'userActions.settle': true },
    webhooks: {
      ...common,
      'endpoints.create': true,
      'endpoints.list': true,
      'endpoints.get': true,
      'endpoints.update': true,
      'endpoints.delete': true,
      'endpoints.verify': true,
      'endpoints.test': true,
      'endpoints.rotateSecret': true,
      'deliveries.list': true,
      'deliveries.replay': true,
      'deliveries.attempts': true,
      'listen.open': true,
      'listen.poll': true,
    },
    'chat-sim': {
      ...common,
      'orgs.create': true,
      'orgs.update': true,
      'orgs.get': true,
      'users.create': true,
      'users.update': true,
      'users.get': true,
      'sim.sendMessage': true,
      'sim.receipt': true,
      'sim.inbox': true,
      'sim.openLink': true,
      'sim.allowLink': true,
      'sim.appAction': true,
      'sim.inviteTester': true,
    },
    gateway: { ...common, 'keys.create': true, 'keys.list': true, 'keys.revoke': true },
  };
  const namesOf = <S extends RpcService>(service: S) => Object.keys(names[service]) as RpcOperationName<S>[];
  return {
    messaging: namesOf('messaging'),
    media: namesOf('media'),
    profile: namesOf('profile'),
    consent: namesOf('consent'),
    webhooks: namesOf('webhooks'),
    'chat-sim': namesOf('chat-sim'),
    gateway: namesOf('gateway'),
  };
})();
