import type { RpcCaller, SendMessageCall, SentMediaFile } from '#platform/contracts';
import type { MediaFacts, SendFactsBeforeCounts } from '../messages/send-rules';

/** A send's file: its D9 facts, and as MessageSent carries it (the Message resource's file and its object, for the handover). */
export type MediaFile = { facts: MediaFacts; files: SentMediaFile[] };

/** A send waiting for its batch: the request, and what was fixed when it arrived. */
export interface PendingSend {
  request: SendMessageCall;
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
  facts: SendFactsBeforeCounts;
  file: MediaFile | null;
}

/** Whom a send is to: the appUserId, and the user when it was addressed by email (null when none has that address). */
export interface Addressed {
  send: PendingSend & { at: number };
  userId: string | null;
  appUserId: string;
}
