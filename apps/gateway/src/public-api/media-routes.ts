import type { RpcClient } from '@platform/kafka';
import { checkPathId } from './consent-routes';
import { CreateMediaDto } from './create-media.dto';
import type { PublicRoute } from './public-route';

/** POST /media and GET /media/{id}: answered by the media service. */
export function mediaRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'POST',
      path: '/media',
      scope: 'media:write',
      body: CreateMediaDto,
      handle: async (ctx) => {
        const body = ctx.body as CreateMediaDto;
        return {
          status: 201,
          body: await deps.rpc.call('media', 'media.create', ctx.caller, { appId: ctx.app.appId, fileName: body.fileName, mimeType: body.mimeType, size: body.size }),
        };
      },
    },
    {
      method: 'GET',
      path: '/media/:id',
      scope: 'messages:read',
      handle: async (ctx) => {
        checkPathId('id', ctx.params.id);
        return { status: 200, body: await deps.rpc.call('media', 'media.get', ctx.caller, { appId: ctx.app.appId, mediaId: ctx.params.id }) };
      },
    },
  ];
}
