import { deciderSpecification } from '#platform/decider/testing';
import { relationshipDecider, type RelationshipCommand } from './relationship.decider';
import type { RelationshipEvent } from './relationship.state';

const metadata = { now: new Date('2026-11-01T10:00:00Z') };

const spec = deciderSpecification(relationshipDecider);
const pair = { userId: 'usr_1', appId: 'app_1' };
const active = { ...pair, account: 'active' as const };
const cmd = (
  type: Exclude<RelationshipCommand['type'], 'SendMessage' | 'SendReceipt' | 'OpenOptInLink' | 'AllowOptInLink' | 'HandOverMessage'>,
  account: 'active' | 'deactivated' | 'deleted' = 'active',
) => ({ type, data: { ...pair, account } }) as RelationshipCommand;
const send: RelationshipCommand = {
  type: 'SendMessage',
  data: { ...active, messageId: 'msg_1', messageType: 'text', text: 'hi', media: [], replyTo: null },
  metadata,
};
const handOver = (account: 'active' | 'deactivated' | 'deleted' = 'active'): RelationshipCommand => ({
  type: 'HandOverMessage',
  data: { ...pair, account, messageId: 'msg_9' },
  metadata,
});

const sent: RelationshipEvent = { type: 'UserSentMessage', data: { ...pair, messageId: 'msg_1', type: 'text', text: 'hi', media: [], replyTo: null } };
const stopped: RelationshipEvent = { type: 'UserStoppedApp', data: pair };
const blocked: RelationshipEvent = { type: 'UserBlockedApp', data: pair };
const unblocked: RelationshipEvent = { type: 'UserUnblockedApp', data: pair };
const allowed: RelationshipEvent = { type: 'BusinessProfileAllowed', data: pair };
const invited: RelationshipEvent = { type: 'TesterInvitationReceived', data: pair };
const accepted: RelationshipEvent = { type: 'TesterInvitationAccepted', data: pair };
const refused = (reason: 'consent_revoked' | 'recipient_unavailable'): RelationshipEvent => ({
  type: 'MessageDeliveryRefused',
  data: { ...pair, messageId: 'msg_9', reason },
});

describe('Relationship decider (chat product side)', () => {
  describe('user actions', () => {
    it('a user sends a message', () => spec.given([]).when(send).then([sent]));
    it('a deactivated account cannot send', () =>
      spec
        .given([])
        .when({ ...send, data: { ...send.data, account: 'deactivated' } } as RelationshipCommand)
        .thenThrows('invalid_transition'));
    it('a deleted account cannot allow', () => spec.given([]).when(cmd('AllowFromProfile', 'deleted')).thenThrows('invalid_transition'));
    it('a user cannot message an app they blocked', () => spec.given([sent, blocked]).when(send).thenThrows('invalid_transition'));
    it('opening a link is recorded', () =>
      spec
        .given([])
        .when({ type: 'OpenOptInLink', data: { ...active, token: 't' }, metadata })
        .then([{ type: 'OptInLinkOpened', data: { ...pair, token: 't' } }]));
    it('Allow on a link is recorded', () =>
      spec
        .given([])
        .when({ type: 'AllowOptInLink', data: { ...active, token: 't' }, metadata })
        .then([{ type: 'OptInLinkAllowed', data: { ...pair, token: 't' } }]));
    it('Allow on a link is refused while blocked', () =>
      spec
        .given([sent, blocked])
        .when({ type: 'AllowOptInLink', data: { ...active, token: 't' }, metadata })
        .thenThrows('invalid_transition'));
    it('Allow on the profile', () => spec.given([]).when(cmd('AllowFromProfile')).then([allowed]));
    it('Allow on the profile is refused while blocked', () => spec.given([sent, blocked]).when(cmd('AllowFromProfile')).thenThrows('invalid_transition'));
    it('a receipt is recorded', () =>
      spec
        .given([sent])
        .when({ type: 'SendReceipt', data: { ...active, messageId: 'msg_2', status: 'read' }, metadata })
        .then([{ type: 'DeviceReceiptSent', data: { ...pair, messageId: 'msg_2', status: 'read' } }]));
  });

  describe('stop, block, unblock', () => {
    it('stop after a chat exists', () => spec.given([sent]).when(cmd('StopApp')).then([stopped]));
    it('stop without any chat is refused', () => spec.given([]).when(cmd('StopApp')).thenThrows('invalid_transition'));
    it('block after a chat exists', () => spec.given([allowed]).when(cmd('BlockApp')).then([blocked]));
    it('block without any chat is refused', () => spec.given([]).when(cmd('BlockApp')).thenThrows('invalid_transition'));
    it('block twice emits nothing', () => spec.given([sent, blocked]).when(cmd('BlockApp')).then([]));
    it('unblock a blocked app', () => spec.given([sent, blocked]).when(cmd('UnblockApp')).then([unblocked]));
    it('unblock when not blocked is refused', () => spec.given([sent]).when(cmd('UnblockApp')).thenThrows('invalid_transition'));
  });

  describe('tester invitations', () => {
    it('shows an invitation', () => spec.given([]).when(cmd('ShowTesterInvitation')).then([invited]));
    it('a second invitation while pending emits nothing', () => spec.given([invited]).when(cmd('ShowTesterInvitation')).then([]));
    it('an accepted tester cannot be invited again', () => spec.given([invited, accepted]).when(cmd('ShowTesterInvitation')).thenThrows('invalid_transition'));
    it('accepts an invitation', () => spec.given([invited]).when(cmd('AcceptTesterInvitation')).then([accepted]));
    it('accepting without an invitation is refused', () => spec.given([]).when(cmd('AcceptTesterInvitation')).thenThrows('invalid_transition'));
    it('accepting twice emits nothing', () => spec.given([invited, accepted]).when(cmd('AcceptTesterInvitation')).then([]));
    it('accepting while blocked is refused', () => spec.given([sent, invited, blocked]).when(cmd('AcceptTesterInvitation')).thenThrows('invalid_transition'));
  });

  describe('handoff (D4)', () => {
    it('delivers when the user let the app in', () => spec.given([sent]).when(handOver()).then([]));
    it('refuses after a stop', () =>
      spec
        .given([sent, stopped])
        .when(handOver())
        .then([refused('consent_revoked')]));
    it('refuses after a block', () =>
      spec
        .given([sent, blocked])
        .when(handOver())
        .then([refused('consent_revoked')]));
    it('still refuses after unblock (unblock leaves the app stopped)', () =>
      spec
        .given([sent, blocked, unblocked])
        .when(handOver())
        .then([refused('consent_revoked')]));
    it('delivers again once the user allows after a stop', () => spec.given([sent, stopped, allowed]).when(handOver()).then([]));
    it('refuses when the account is deactivated', () =>
      spec
        .given([sent])
        .when(handOver('deactivated'))
        .then([refused('recipient_unavailable')]));
    it('refuses when the account is deleted', () =>
      spec
        .given([sent])
        .when(handOver('deleted'))
        .then([refused('recipient_unavailable')]));
    // The handover consumer keeps no inbox: a copy of a handover (a duplicate on the topic, a replay) is passed over here.
    it('refuses a message once: a copy of its handover changes nothing', () =>
      spec
        .given([sent, stopped, refused('consent_revoked')])
        .when(handOver())
        .then([]));
    it('refuses once even when the account went away since the first refusal', () =>
      spec
        .given([sent, stopped, refused('consent_revoked')])
        .when(handOver('deleted'))
        .then([]));
    it('refuses another message of the same pair', () =>
      spec
        .given([sent, stopped, refused('consent_revoked')])
        .when({ ...handOver(), data: { ...handOver().data, messageId: 'msg_10' } } as RelationshipCommand)
        .then([{ type: 'MessageDeliveryRefused', data: { ...pair, messageId: 'msg_10', reason: 'consent_revoked' } }]));
  });
});
