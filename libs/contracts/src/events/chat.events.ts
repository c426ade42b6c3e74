import { bool, nullableStr, oneOf, record, str, type JsonSchema } from './schema-builders';

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
export type ChatUserEvent = OrgCreated | OrgUpdated | UserCreated | UserStatusChanged;

const orgData = record({
  orgId: str('The organization (`org_…`).'),
  name: str('Organization name.'),
  allowsExternalBusinesses: bool('Whether public_live apps of other organizations may reach its users.'),
});

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
};
