import { arrayOf, bool, int, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

export const USER_STATUSES = ['active', 'deactivated', 'deleted'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

/** What the chat product tells the platform on `chat.user-events` (keyed by orgId or userId). */
export interface OrgCreated {
  type: 'OrgCreated';
  data: { orgId: string; name: string; allowsExternalBusinesses: boolean };
}
export interface OrgUpdated {
  type: 'OrgUpdated';
  data: { orgId: string; name: string; allowsExternalBusinesses: boolean };
}
export interface UserCreated {
  type: 'UserCreated';
  data: { userId: string; orgId: string; email: string; displayName: string | null; status: UserStatus };
}
export interface UserStatusChanged {
  type: 'UserStatusChanged';
  data: { userId: string; orgId: string; status: UserStatus; previousStatus: UserStatus };
}

/** Message types a user can send in the chat product (the spec's send types). */
export const CHAT_MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'file'] as const;
export type ChatMessageType = (typeof CHAT_MESSAGE_TYPES)[number];

/** A file a user attached, already stored by the chat product in the platform's bucket. */
export interface ChatMediaFile {
  objectKey: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/** A user sent an app a message (also the user_initiated opt-in when it is the first). Keyed by userId. */
export interface UserSentMessage {
  type: 'UserSentMessage';
  data: {
    userId: string;
    appId: string;
    messageId: string;
    type: ChatMessageType;
    text: string | null;
    media: ChatMediaFile[];
    replyTo: string | null;
  };
}
/** A device of the user reported a message from an app as delivered or read. */
export interface DeviceReceiptSent {
  type: 'DeviceReceiptSent';
  data: { userId: string; appId: string; messageId: string; status: 'delivered' | 'read' };
}
/** The user opened an opt-in link; opening alone never opts in. */
export interface OptInLinkOpened {
  type: 'OptInLinkOpened';
  data: { userId: string; appId: string; token: string };
}
/** The user tapped Allow on the business profile opened from an opt-in link. */
export interface OptInLinkAllowed {
  type: 'OptInLinkAllowed';
  data: { userId: string; appId: string; token: string };
}
/** The user tapped Allow on the business profile (without a link). */
export interface BusinessProfileAllowed {
  type: 'BusinessProfileAllowed';
  data: { userId: string; appId: string };
}
export interface UserStoppedApp {
  type: 'UserStoppedApp';
  data: { userId: string; appId: string };
}
export interface UserBlockedApp {
  type: 'UserBlockedApp';
  data: { userId: string; appId: string };
}
export interface UserUnblockedApp {
  type: 'UserUnblockedApp';
  data: { userId: string; appId: string };
}
/** The chat product showed the user an app's sandbox tester invitation (sent from the admin API). */
export interface TesterInvitationReceived {
  type: 'TesterInvitationReceived';
  data: { userId: string; appId: string };
}
export interface TesterInvitationAccepted {
  type: 'TesterInvitationAccepted';
  data: { userId: string; appId: string };
}
/** D4: why the chat product refused a handed-over message. */
export const DELIVERY_REFUSAL_REASONS = ['consent_revoked', 'recipient_unavailable'] as const;
export type DeliveryRefusalReason = (typeof DELIVERY_REFUSAL_REASONS)[number];
/** The chat product refused a message at handoff (the user stopped or blocked the app, or the account is gone). */
export interface MessageDeliveryRefused {
  type: 'MessageDeliveryRefused';
  data: { userId: string; appId: string; messageId: string; reason: DeliveryRefusalReason };
}

/** What users do with apps: keyed by userId, so one user's actions stay in order. */
export type UserAppEvent =
  | UserSentMessage
  | DeviceReceiptSent
  | OptInLinkOpened
  | OptInLinkAllowed
  | BusinessProfileAllowed
  | UserStoppedApp
  | UserBlockedApp
  | UserUnblockedApp
  | TesterInvitationReceived
  | TesterInvitationAccepted
  | MessageDeliveryRefused;

export type ChatUserEvent = OrgCreated | OrgUpdated | UserCreated | UserStatusChanged | UserAppEvent;

/** A file of a handed-over message, as stored in the platform's bucket. */
export interface OutboundMediaFile {
  mediaId: string;
  objectKey: string;
  fileName: string;
  mimeType: string;
  size: number;
}

/** `chat.outbound`: the platform hands a message to the chat product for delivery (D3). Keyed by userId. */
export interface MessageHandedOver {
  type: 'MessageHandedOver';
  data: {
    messageId: string;
    appId: string;
    userId: string;
    appUserId: string;
    type: ChatMessageType;
    text: string | null;
    media: OutboundMediaFile[];
  };
}

const orgData = record({
  orgId: str('The organization (`org_…`).'),
  name: str('Organization name.'),
  allowsExternalBusinesses: bool('Whether public_live apps of other organizations may reach its users.'),
});

const userApp = (extra: Record<string, JsonSchema> = {}) => record({ userId: str('The chat user (`usr_…`).'), appId: str('The app (`app_…`).'), ...extra });

export const CHAT_USER_EVENT_SCHEMAS: Record<ChatUserEvent['type'], JsonSchema> = {
  OrgCreated: orgData,
  OrgUpdated: orgData,
  UserCreated: record({
    userId: str('The chat user (`usr_…`); never shown to apps, which see appUserIds.'),
    orgId: str('Organization of the user.'),
    email: str('Work email, lower-cased.'),
    displayName: nullableStr('Name shown in the chat product.'),
    status: oneOf('Account status.', USER_STATUSES),
  }),
  UserStatusChanged: record({
    userId: str('The chat user.'),
    orgId: str('Organization of the user.'),
    status: oneOf('Account status after the change.', USER_STATUSES),
    previousStatus: oneOf('Account status before.', USER_STATUSES),
  }),
  UserSentMessage: userApp({
    messageId: str('Id of the inbound message (`msg_…`), minted by the chat product.'),
    type: oneOf('Message type.', CHAT_MESSAGE_TYPES),
    text: nullableStr('Text, or the caption of a media message.'),
    media: arrayOf(
      'Files attached, already stored in the platform bucket.',
      record({
        objectKey: str('Key of the object in the media bucket.'),
        fileName: str('Name the user gave the file.'),
        mimeType: str('Content type as the chat product determined it.'),
        size: int('Bytes.', { minimum: 0 }),
      }),
    ),
    replyTo: nullableStr('The app message (`msg_…`) this one replies to.'),
  }),
  DeviceReceiptSent: userApp({
    messageId: str('The app message (`msg_…`).'),
    status: oneOf('What the device reports.', ['delivered', 'read']),
  }),
  OptInLinkOpened: userApp({ token: str('The opt-in link token as it appears in the link.') }),
  OptInLinkAllowed: userApp({ token: str('The opt-in link token the user allowed.') }),
  BusinessProfileAllowed: userApp(),
  UserStoppedApp: userApp(),
  UserBlockedApp: userApp(),
  UserUnblockedApp: userApp(),
  TesterInvitationReceived: userApp(),
  TesterInvitationAccepted: userApp(),
  MessageDeliveryRefused: userApp({
    messageId: str('The app message that was not delivered.'),
    reason: oneOf('Why (D4).', DELIVERY_REFUSAL_REASONS),
  }),
};

export const CHAT_OUTBOUND_EVENT_SCHEMAS: Record<MessageHandedOver['type'], JsonSchema> = {
  MessageHandedOver: record({
    messageId: str('The message (`msg_…`).'),
    appId: str('Sending app.'),
    userId: str('Recipient chat user.'),
    appUserId: str("Recipient's id within the app."),
    type: oneOf('Message type.', CHAT_MESSAGE_TYPES),
    text: nullableStr('Text, or the caption of a media message.'),
    media: arrayOf(
      'Files to show, stored in the platform bucket.',
      record({
        mediaId: str('The media (`med_…`).'),
        objectKey: str('Key of the object in the media bucket.'),
        fileName: str('File name.'),
        mimeType: str('Content type.'),
        size: int('Bytes.', { minimum: 0 }),
      }),
    ),
  }),
};
