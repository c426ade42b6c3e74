import type { ChatMessageType, KeyEnvironment, MessageMediaFile, OutboundMediaFile, RpcCaller } from '@platform/contracts';
import type { MediaFacts, SendFacts } from '../messages/send-rules';

/** What the gateway passes after its own checks (DESIGN section 3): the validated body and the key's context. */
export interface SendMessageRequest {
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

/** The spec's send acceptance (202). */
export interface SendAcceptance {
  id: string;
  status: 'accepted';
  appUserId: string;
  type: ChatMessageType;
  createdAt: string;
  clientReference: string | null;
}

export type SendResult = { acceptance: SendAcceptance; replayed: boolean };
export type MediaFile = { facts: MediaFacts; listed: MessageMediaFile[]; handedOver: OutboundMediaFile[] };

/** A send waiting for its batch: the request, and what was fixed when it arrived. */
export interface PendingSend {
  request: SendMessageRequest;
  caller: RpcCaller;
  now: Date;
  messageId: string;
  /** The request's W3C trace context, for the outbox rows of its events (the batch runs outside it). */
  trace: Record<string, string>;
}

/** A claimed send on its way through the batch. */
export interface ClaimedSend extends PendingSend {
  /** Position in the batch, where its outcome goes. */
  at: number;
  appUserId: string;
  facts: SendFacts;
  file: MediaFile | null;
}

/** Whom a send is to: the appUserId, and the user when it was addressed by email (null when none has that address). */
export interface Addressed {
  send: PendingSend & { at: number };
  userId: string | null;
  appUserId: string;
}
