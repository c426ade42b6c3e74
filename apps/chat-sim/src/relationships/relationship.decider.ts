import type { ChatMediaFile, ChatMessageType, UserStatus } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { assertNever, type Command, type Decider } from '#platform/decider';
import { evolveRelationship, initialRelationshipState, type RelationshipEvent, type RelationshipState } from './relationship.state';

/** Every command names the pair and carries the account's status as the chat product sees it now. */
interface Pair {
  userId: string;
  appId: string;
  account: UserStatus;
}

export type RelationshipCommand =
  | Command<'SendMessage', Pair & { messageId: string; messageType: ChatMessageType; text: string | null; media: ChatMediaFile[]; replyTo: string | null }>
  | Command<'SendReceipt', Pair & { messageId: string; status: 'delivered' | 'read' }>
  | Command<'OpenOptInLink', Pair & { token: string }>
  | Command<'AllowOptInLink', Pair & { token: string }>
  | Command<'AllowFromProfile', Pair>
  | Command<'StopApp', Pair>
  | Command<'BlockApp', Pair>
  | Command<'UnblockApp', Pair>
  | Command<'ShowTesterInvitation', Pair>
  | Command<'AcceptTesterInvitation', Pair>
  | Command<'HandOverMessage', Pair & { messageId: string }>;

const refuse = (message: string) => new DomainError('invalid_transition', message);

export function decideRelationship(command: RelationshipCommand, state: RelationshipState): RelationshipEvent[] {
  const { userId, appId, account } = command.data;
  const pair = { userId, appId };

  // The platform hands over whatever it decided; the chat product has the last word (D4).
  if (command.type === 'HandOverMessage') {
    // A copy of a handover already refused (a duplicate on the topic, a replay): refused once is enough.
    if (state.refusedMessageIds.includes(command.data.messageId)) return [];
    if (account !== 'active')
      return [{ type: 'MessageDeliveryRefused', data: { ...pair, messageId: command.data.messageId, reason: 'recipient_unavailable' } }];
    if (state.blocked || state.stopped)
      return [{ type: 'MessageDeliveryRefused', data: { ...pair, messageId: command.data.messageId, reason: 'consent_revoked' } }];
    return [];
  }
  // A deactivated or deleted account cannot act at all.
  if (account !== 'active') throw refuse(`The user's account is ${account}.`);

  switch (command.type) {
    case 'SendMessage': {
      if (state.blocked) throw refuse('The user blocked this app; unblock it first.');
      const d = command.data;
      return [{ type: 'UserSentMessage', data: { ...pair, messageId: d.messageId, type: d.messageType, text: d.text, media: d.media, replyTo: d.replyTo } }];
    }
    case 'SendReceipt':
      return [{ type: 'DeviceReceiptSent', data: { ...pair, messageId: command.data.messageId, status: command.data.status } }];
    case 'OpenOptInLink':
      return [{ type: 'OptInLinkOpened', data: { ...pair, token: command.data.token } }];
    case 'AllowOptInLink':
      if (state.blocked) throw refuse('The user blocked this app; unblock it first.');
      return [{ type: 'OptInLinkAllowed', data: { ...pair, token: command.data.token } }];
    case 'AllowFromProfile':
      if (state.blocked) throw refuse('The user blocked this app; unblock it first.');
      return [{ type: 'BusinessProfileAllowed', data: pair }];
    case 'StopApp':
      if (!state.engaged) throw refuse('The user has no chat with this app to stop.');
      return [{ type: 'UserStoppedApp', data: pair }];
    case 'BlockApp':
      if (!state.engaged) throw refuse('The user has no chat with this app to block.');
      return state.blocked ? [] : [{ type: 'UserBlockedApp', data: pair }];
    case 'UnblockApp':
      if (!state.blocked) throw refuse('The user has not blocked this app.');
      return [{ type: 'UserUnblockedApp', data: pair }];
    case 'ShowTesterInvitation':
      if (state.invitation === 'accepted') throw refuse('The user is a tester of this app already.');
      return state.invitation === 'invited' ? [] : [{ type: 'TesterInvitationReceived', data: pair }];
    case 'AcceptTesterInvitation':
      if (state.invitation === 'none') throw refuse('The app has not invited this user as a tester.');
      if (state.invitation === 'accepted') return [];
      if (state.blocked) throw refuse('The user blocked this app; unblock it first.');
      return [{ type: 'TesterInvitationAccepted', data: pair }];
    default:
      return assertNever(command);
  }
}

export const relationshipDecider: Decider<RelationshipState, RelationshipCommand, RelationshipEvent> = {
  initialState: initialRelationshipState,
  decide: decideRelationship,
  evolve: evolveRelationship,
};
