/**
 * What chat-sim, the chat product's simulator, answers (orgs, users, what a user does) and its resources.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { ChatMessageType, UserStatus } from '../events/chat.events';
import type { EventRef } from '../rpc';

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
