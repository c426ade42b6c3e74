import type { EventRef, RpcCaller, SettledUserActions } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';

/** The consent a user action left (null when the user has none for the app). */
export type Settled = Omit<SettledUserActions, 'events'>;

/**
 * Admin and simulator calls return once the platform has taken their effect in (architecture section 8):
 * consent has applied the chat events (or refused them: the refusal is the answer), and messaging
 * has applied both the chat events and the consent events they caused, and media has registered
 * the files users sent. Each service skips the types
 * it does not consume, so callers pass whatever they published.
 */
export function platformSettle(rpc: RpcClient) {
  return {
    async afterChatEvents(caller: RpcCaller, events: EventRef[], appId?: string, userId?: string): Promise<Settled> {
      const settled = await rpc.call('consent', 'userActions.settle', caller, { events, appId, userId });
      await Promise.all([
        rpc.call('messaging', 'events.awaitApplied', caller, { consumer: 'user-events', events }),
        rpc.call('messaging', 'events.awaitApplied', caller, { consumer: 'consent', events: settled.events }),
        // Files a user sent are media (GET /media/{id}) by the time the call returns.
        events.some((e) => e.type === 'UserSentMessage') ? rpc.call('media', 'events.awaitApplied', caller, { consumer: 'user-media', events }) : null,
      ]);
      return { appUserId: settled.appUserId, consent: settled.consent };
    },

    /** An app change (creation, status, quota) is in messaging's projection at `version` or later. */
    async afterAppChange(caller: RpcCaller, appId: string, version: number): Promise<void> {
      const { caughtUp } = await rpc.call('messaging', 'apps.awaitVersion', caller, { appId, version });
      if (!caughtUp) throw new DomainError('internal_error', 'The change was made but has not reached every service yet; retry the read.');
    },
  };
}
export type PlatformSettle = ReturnType<typeof platformSettle>;
