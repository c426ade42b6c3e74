import { appUserIdFor, SIM_APP_ACTIONS, type RpcCaller, type SimAppAction, type SimOutcome } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';
import type { AppAccessCache } from '../app-status/app-access.cache';
import type { AdminContext, AdminRoute } from './admin-route';
import type { PlatformSettle, Settled } from './platform-settle';
import { InviteTesterDto, SimMediaDto, SimReceiptDto, SimSendMessageDto } from './sim.dto';

export interface AudienceDeps {
  rpc: RpcClient;
  apps: AppAccessCache;
  appUserIdSecret: string;
  settle: PlatformSettle;
}

const isSimAppAction = (action: string): action is SimAppAction => (SIM_APP_ACTIONS as readonly string[]).includes(action);

/**
 * Testers and the simulator's user actions (architecture section 8). chat-sim records what the user did
 * and publishes it; the call returns once the consent service has applied it, with the consent that
 * resulted, or with the platform's refusal (an expired link, say), so tests need no sleeps.
 */
export function audienceRoutes(deps: AudienceDeps): AdminRoute[] {
  const knownApp = async (appId: string) => {
    if (!(await deps.apps.get(appId))) throw new DomainError('not_found', 'No such app.');
  };
  const settle = (caller: RpcCaller, published: SimOutcome, appId?: string, userId?: string) =>
    deps.settle.afterChatEvents(caller, published.events, appId, userId);
  const consentOf = (settled: Settled) => {
    if (settled.consent === null) throw new DomainError('not_found', 'The user has no consent for this app.');
    return settled.consent;
  };
  /** The app an opt-in link points at, read from the link as the chat product would. */
  const linkApp = async (caller: RpcCaller, token: string) => {
    const { appId } = await deps.rpc.call('consent', 'optinLinks.describe', caller, { token });
    await knownApp(appId);
    return appId;
  };

  return [
    {
      method: 'POST',
      path: '/apps/:appId/testers',
      body: InviteTesterDto,
      handle: async (ctx: AdminContext<InviteTesterDto>) => {
        const { appId } = ctx.params;
        await knownApp(appId);
        const published = await deps.rpc.call('chat-sim', 'sim.inviteTester', ctx.caller, { appId, userId: ctx.body.userId });
        await settle(ctx.caller, published, appId, ctx.body.userId);
        return { status: 201, body: { appId, userId: ctx.body.userId, status: 'invited' } };
      },
    },
    {
      method: 'POST',
      path: '/sim/users/:userId/messages',
      body: SimSendMessageDto,
      handle: async (ctx: AdminContext<SimSendMessageDto>) => {
        const { userId } = ctx.params;
        await knownApp(ctx.body.appId);
        const sent = await deps.rpc.call('chat-sim', 'sim.sendMessage', ctx.caller, {
          userId,
          appId: ctx.body.appId,
          type: ctx.body.type,
          text: ctx.body.text ?? null,
          media: (ctx.body.media ?? []).map((m: SimMediaDto) => ({ fileName: m.fileName, mimeType: m.mimeType, base64: m.base64 })),
          replyTo: ctx.body.replyTo ?? null,
        });
        await settle(ctx.caller, sent, ctx.body.appId, userId);
        return { status: 201, body: { id: sent.messageId, appUserId: appUserIdFor(deps.appUserIdSecret, ctx.body.appId, userId) } };
      },
    },
    {
      method: 'POST',
      path: '/sim/users/:userId/receipts',
      body: SimReceiptDto,
      handle: async (ctx: AdminContext<SimReceiptDto>) => {
        const published = await deps.rpc.call('chat-sim', 'sim.receipt', ctx.caller, {
          userId: ctx.params.userId,
          messageId: ctx.body.messageId,
          status: ctx.body.status,
        });
        await settle(ctx.caller, published);
        return { status: 200, body: { messageId: ctx.body.messageId, status: ctx.body.status } };
      },
    },
    {
      method: 'GET',
      path: '/sim/users/:userId/inbox',
      handle: async (ctx) => {
        const appId = ctx.query.get('appId');
        if (!appId) throw DomainError.invalid([{ field: 'appId', issue: 'is required' }]);
        await knownApp(appId);
        return { status: 200, body: await deps.rpc.call('chat-sim', 'sim.inbox', ctx.caller, { userId: ctx.params.userId, appId }) };
      },
    },
    {
      method: 'POST',
      path: '/sim/users/:userId/optin/:token/open',
      handle: async (ctx) => {
        const { userId, token } = ctx.params;
        const appId = await linkApp(ctx.caller, token);
        const published = await deps.rpc.call('chat-sim', 'sim.openLink', ctx.caller, { userId, appId, token });
        await settle(ctx.caller, published, appId, userId);
        return { status: 200, body: await deps.rpc.call('profile', 'profile.get', ctx.caller, { appId }) };
      },
    },
    {
      method: 'POST',
      path: '/sim/users/:userId/optin/:token/allow',
      handle: async (ctx) => {
        const { userId, token } = ctx.params;
        const appId = await linkApp(ctx.caller, token);
        const published = await deps.rpc.call('chat-sim', 'sim.allowLink', ctx.caller, { userId, appId, token });
        return { status: 200, body: consentOf(await settle(ctx.caller, published, appId, userId)) };
      },
    },
    {
      method: 'POST',
      path: '/sim/users/:userId/apps/:appId/:action',
      handle: async (ctx) => {
        const { userId, appId, action } = ctx.params;
        if (!isSimAppAction(action)) throw new DomainError('route_not_found', `No simulator action ${action}.`);
        await knownApp(appId);
        const published = await deps.rpc.call('chat-sim', 'sim.appAction', ctx.caller, { userId, appId, action });
        return { status: 200, body: consentOf(await settle(ctx.caller, published, appId, userId)) };
      },
    },
  ];
}
