import { CHAT_MESSAGE_TYPES, type ChatMessageType } from './chat.events';
import type { TemplateRef } from '../templates';
import { arrayOf, bool, int, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

/**
 * What an app can send: the chat product's types, and `template` (architecture section 13), a text
 * rendered from the app's approved template, which reaches the chat product as a text message.
 */
export const SENT_MESSAGE_TYPES = [...CHAT_MESSAGE_TYPES, 'template'] as const;
export type SentMessageType = (typeof SENT_MESSAGE_TYPES)[number];

/** A file of a message, as the Message resource and the public events list it. */
export interface MessageMediaFile {
  id: string;
  mimeType: string | null;
  fileName: string;
  size: number;
}

/** D4: why a message failed. */
export const MESSAGE_FAILURE_REASONS = ['consent_revoked', 'recipient_unavailable', 'expired'] as const;
export type MessageFailureReason = (typeof MESSAGE_FAILURE_REASONS)[number];

/** Every status event repeats who and what, so consumers (the webhook dispatcher) need no state. */
interface StatusData {
  messageId: string;
  appUserId: string;
  clientReference: string | null;
}

/** What a send's acceptance carries: who and what was sent (D3). */
export type AcceptanceData = StatusData & {
  userId: string;
  type: SentMessageType;
  text: string | null;
  media: MessageMediaFile[];
  /** A template send's template version (its `text` is the rendered one); absent in other sends and in events written before templates. */
  template?: TemplateRef;
  /** Sent while the reply window was closed (counts towards D7's cap). */
  businessInitiated: boolean;
  /**
   * The Idempotency-Key the send was accepted under and its body's hash (architecture section 3):
   * the message's projection answers a repeat from them for 24 hours. Absent in MessageAccepted and
   * in events written before they were carried.
   */
  idempotency?: SendIdempotency;
};
/** An accepted send's Idempotency-Key and the SHA-256 (hex) of the body it came with. */
export interface SendIdempotency {
  key: string;
  bodyHash: string;
}
/** A file handed over with a send: the Message resource's file and its object in the media bucket. */
export type SentMediaFile = MessageMediaFile & { objectKey: string };
/** A MessageSent that is the send itself (handed over at once): its acceptance, with the objects of its files. */
export type SentAtOnceData = Omit<AcceptanceData, 'media'> & { media: SentMediaFile[] };

/**
 * Events of the Message aggregate (stream `message-<messageId>`), published on `messaging.events`
 * keyed by `appId:appUserId`, so one conversation's events stay in order.
 *
 * MessageAccepted: a send accepted but not handed over at once (D3); its handover later appends
 * MessageSent. Streams written before one event per send hold it before their MessageSent.
 */
export interface MessageAccepted {
  type: 'MessageAccepted';
  data: AcceptanceData;
}
/**
 * Handed to the chat product on chat.outbound (D3): message.status `sent`. A send handed over at once
 * appends only this event, carrying what acceptance carries (SentAtOnceData), and its handover is
 * derived from it alone; in streams written before one event per send it follows the MessageAccepted
 * with the status data alone. A message is opened by its stream's first event, not by this one's shape.
 */
export interface MessageSent {
  type: 'MessageSent';
  data: StatusData | SentAtOnceData;
}
export interface MessageDelivered {
  type: 'MessageDelivered';
  data: StatusData;
}
export interface MessageRead {
  type: 'MessageRead';
  data: StatusData;
}
export interface MessageFailed {
  type: 'MessageFailed';
  data: StatusData & { reason: MessageFailureReason };
}
/** A user's message to the app (an inbound message, status `received`): message.received. */
export interface MessageReceived {
  type: 'MessageReceived';
  data: {
    messageId: string;
    appUserId: string;
    userId: string;
    type: ChatMessageType;
    text: string | null;
    media: (MessageMediaFile & { objectKey: string })[];
    /** The app message this one replies to (message.received's context.messageId). */
    replyTo: string | null;
  };
}
/** The Message aggregate's events; the Template aggregate's share `messaging.events` (template.events.ts). */
export type MessagingEvent = MessageAccepted | MessageSent | MessageDelivered | MessageRead | MessageFailed | MessageReceived;

const statusData = {
  messageId: str('The message (`msg_…`).'),
  appUserId: str('The recipient within the app (`u_…`).'),
  clientReference: nullableStr('The value the app gave at send, echoed in message.status.'),
};
const mediaFile = {
  id: str('The media (`med_…`), fetched with GET /media/{id}.'),
  mimeType: nullableStr('Content type.'),
  fileName: str('File name.'),
  size: int('Bytes.', { minimum: 0 }),
};

const acceptanceData = {
  ...statusData,
  userId: str('The chat user (`usr_…`); never shown to apps.'),
  type: oneOf('Message type.', SENT_MESSAGE_TYPES),
  text: nullableStr('Text, or the caption of a media message.'),
  media: arrayOf('Files of a media message.', record(mediaFile)),
  template: record({
    id: str('The template (`tpl_…`).'),
    name: str('Its name.'),
    language: str('Its language.'),
    version: int('The version rendered.', { minimum: 1 }),
  }),
  businessInitiated: bool('Sent while the reply window was closed (D7).'),
  idempotency: record({
    key: str('The Idempotency-Key the send was accepted under.'),
    bodyHash: str("SHA-256 (hex) of the send's body."),
  }),
};
/** acceptanceData's fields that older events and non-template sends leave out. */
const ACCEPTANCE_OPTIONAL = ['template', 'idempotency'];

/** The acceptance a MessageSent carries (a send handed over at once, D3), or null when it carries the status data alone. */
export function carriedAcceptance(data: MessageSent['data']): SentAtOnceData | null {
  return 'userId' in data ? data : null;
}

export const MESSAGING_EVENT_SCHEMAS: Record<MessagingEvent['type'], JsonSchema> = {
  MessageAccepted: record(acceptanceData, ACCEPTANCE_OPTIONAL),
  MessageSent: {
    description: 'The status data alone after a MessageAccepted; a send handed over at once carries its acceptance (D3).',
    anyOf: [
      record(
        {
          ...acceptanceData,
          media: arrayOf('Files of a media message.', record({ ...mediaFile, objectKey: str('Key of the object in the media bucket.') })),
        },
        ACCEPTANCE_OPTIONAL,
      ),
      record(statusData),
    ],
  },
  MessageDelivered: record(statusData),
  MessageRead: record(statusData),
  MessageFailed: record({ ...statusData, reason: oneOf('Why (D4).', MESSAGE_FAILURE_REASONS) }),
  MessageReceived: record({
    messageId: str('The inbound message (`msg_…`), as the chat product named it.'),
    appUserId: str('The sender within the app (`u_…`).'),
    userId: str('The chat user (`usr_…`); never shown to apps.'),
    type: oneOf('Message type.', CHAT_MESSAGE_TYPES),
    text: nullableStr('Text, or the caption of a media message.'),
    media: arrayOf('Files the user sent.', record({ ...mediaFile, objectKey: str('Key of the object in the media bucket.') })),
    replyTo: nullableStr('The app message this one replies to.'),
  }),
};
