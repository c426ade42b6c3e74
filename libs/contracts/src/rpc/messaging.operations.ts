/**
 * What messaging answers (sends and reads of messages, the app's quota) and the resources it builds.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { MessageMediaFile, SentMessageType } from '../events/messaging.events';
import type { TemplateRef } from '../templates';
import type { EventRef } from '../rpc';
import type { KeyEnvironment } from '../scopes';

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
    type: SentMessageType;
    text?: string | null;
    mediaId?: string | null;
    /** A `template` send's template, by name and language, and its variables' values (architecture section 13). */
    template?: TemplateSend | null;
    clientReference?: string | null;
  };
  /**
   * The events of `body.mediaId` (media.prepare's answer, D12's check on first use): messaging
   * decides once its media projection has applied them, waiting as `events.awaitApplied` does (500
   * internal_error when not in time), so a media send is one call to messaging (ADR 0214). Absent
   * or empty: nothing to wait for.
   */
  mediaEvents?: EventRef[];
}

/** Which template a send renders and with what: `POST /messages` with `type: "template"`. */
export interface TemplateSend {
  name: string;
  language: string;
  variables: Record<string, string>;
}

/** The spec's SendAcceptance (202). */
export interface SendAcceptance {
  id: string;
  status: 'accepted';
  appUserId: string;
  type: SentMessageType;
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
  type: SentMessageType;
  text: string | null;
  media: MessageMediaFile[];
  /** The template version a template send was rendered from (`text` holds the rendered text), else null. */
  template: TemplateRef | null;
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
  /** The app's messages per UTC day by the status they reached, from `fromDay` to `toDay` (inclusive, `YYYY-MM-DD`), days without any left out (the console's overview chart). */
  'apps.messageCounts': { request: { appId: string; fromDay: string; toDay: string }; reply: { data: MessageDayCount[] } };
}

/** Messages of one app that reached each status on one UTC day (each status a message reached counts once, on the day it reached it). */
export interface MessageDayCount {
  day: string;
  sent: number;
  delivered: number;
  read: number;
  failed: number;
}
