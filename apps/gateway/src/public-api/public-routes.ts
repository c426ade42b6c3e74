import { API_VERSION } from '#platform/contracts';
import type { Clock } from '#platform/clock';
import type { RpcClient } from '#platform/kafka';
import { listenRoutes } from '../listen/listen-routes';
import { ListenStreams } from '../listen/listen-streams';
import { consentRoutes } from './consent-routes';
import { eventRoutes } from './event-routes';
import { mediaRoutes } from './media-routes';
import { messageRoutes } from './message-routes';
import type { PublicRoute } from './public-route';
import { templateRoutes } from './template-routes';
import { UpdateBusinessProfileDto } from './update-business-profile.dto';
import { webhookRoutes } from './webhook-routes';

/** Every public endpoint of the spec. */
export function publicRoutes(deps: { rpc: RpcClient; clock: Clock; listenStreams?: ListenStreams }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/ping',
      scope: null,
      doc: {
        operationId: 'ping',
        tag: 'Keys',
        summary: 'Check a key',
        description: 'Confirms that the key is valid and shows its app, environment and scopes. Needs no scope.',
        success: { status: 200, schema: 'PingResult', description: 'The key works.' },
      },
      handle: async (ctx) => ({
        status: 200,
        body: {
          ok: true,
          appId: ctx.app.appId,
          appStatus: ctx.app.status,
          environment: ctx.key.environment,
          scopes: ctx.key.scopes,
          apiVersion: API_VERSION,
          requestId: ctx.requestId,
          time: deps.clock.now().toISOString(),
        },
      }),
    },
    {
      method: 'GET',
      path: '/business-profile',
      scope: null,
      doc: {
        operationId: 'getBusinessProfile',
        tag: 'Business profile',
        summary: 'Get the business profile',
        description: 'Any valid key may read it. avatarUrl works without auth for at least 1 hour after each read.',
        success: { status: 200, schema: 'BusinessProfile', description: 'The profile.' },
      },
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('profile', 'profile.get', ctx.caller, { appId: ctx.app.appId }) }),
    },
    {
      method: 'PATCH',
      path: '/business-profile',
      scope: 'profile:write',
      body: UpdateBusinessProfileDto,
      doc: {
        operationId: 'updateBusinessProfile',
        tag: 'Business profile',
        summary: 'Update the business profile',
        description: 'Every field is optional; null clears a nullable one. avatarMediaId takes a ready image from POST /media of at most 5 MiB.',
        success: { status: 200, schema: 'BusinessProfile', description: 'The updated profile.' },
      },
      handle: async (ctx) => {
        const patch = { ...(ctx.body as UpdateBusinessProfileDto) };
        // The avatar's facts come from media, which checks a pending upload first (D12 "on first use").
        const avatar =
          typeof patch.avatarMediaId === 'string'
            ? await deps.rpc.call('media', 'media.prepare', ctx.caller, { appId: ctx.app.appId, mediaId: patch.avatarMediaId })
            : undefined;
        return { status: 200, body: await deps.rpc.call('profile', 'profile.update', ctx.caller, { appId: ctx.app.appId, patch, avatar }) };
      },
    },
    ...consentRoutes(deps),
    ...messageRoutes(deps),
    ...mediaRoutes(deps),
    ...webhookRoutes(deps),
    ...templateRoutes(deps),
    ...eventRoutes(deps),
    ...listenRoutes({ rpc: deps.rpc, streams: deps.listenStreams ?? new ListenStreams() }),
  ];
}
