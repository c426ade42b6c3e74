import type { UserAppEvent } from '#platform/contracts';

/**
 * What the chat product knows about one user and one app (stream `relationship-<userId>:<appId>`):
 * its events are the user's actions towards the app, published on chat.user-events. The platform's
 * consent is decided by the consent service; this state only lets the chat product refuse what its
 * own UI would not allow, and refuse handoffs after a stop or block (D4).
 */
export type RelationshipEvent = UserAppEvent;

export interface RelationshipState {
  /** The user has let the app in at least once (message, Allow, tester acceptance): a chat exists to stop or block. */
  engaged: boolean;
  blocked: boolean;
  /** The user stopped the app (or unblocked it, which leaves it stopped) and has not let it back in since. */
  stopped: boolean;
  invitation: 'none' | 'invited' | 'accepted';
  /** Messages whose handover was refused: a copy of the handover is refused no more (the consumer keeps no inbox). */
  refusedMessageIds: readonly string[];
}

export const initialRelationshipState = (): RelationshipState => ({
  engaged: false,
  blocked: false,
  stopped: false,
  invitation: 'none',
  refusedMessageIds: [],
});

export function evolveRelationship(state: RelationshipState, event: RelationshipEvent): RelationshipState {
  switch (event.type) {
    case 'UserSentMessage':
    case 'OptInLinkAllowed':
    case 'BusinessProfileAllowed':
      return { ...state, engaged: true, stopped: false };
    case 'TesterInvitationAccepted':
      return { ...state, engaged: true, stopped: false, invitation: 'accepted' };
    case 'TesterInvitationReceived':
      return { ...state, invitation: state.invitation === 'accepted' ? 'accepted' : 'invited' };
    case 'UserStoppedApp':
      return { ...state, stopped: true };
    case 'UserBlockedApp':
      return { ...state, blocked: true };
    case 'UserUnblockedApp':
      return { ...state, blocked: false, stopped: true };
    case 'MessageDeliveryRefused':
      return { ...state, refusedMessageIds: [...state.refusedMessageIds, event.data.messageId] };
    case 'OptInLinkOpened':
    case 'DeviceReceiptSent':
      return state;
  }
}
