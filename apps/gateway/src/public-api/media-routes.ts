import type { RpcClient } from '#platform/kafka';
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
      doc: {
        operationId: 'createMedia',
        tag: 'Media',
        summary: 'Create an upload',
        description:
          'Then PUT the exact bytes to upload.url with upload.headers within 15 minutes, and send a message with the media id. Images, video and audio up to 16 MiB, documents up to 100 MiB; 100 uploads per app per hour.',
        success: { status: 201, schema: 'CreateMediaResponse', description: 'The media record and the upload instruction.' },
        errors: ['unsupported_media_type', 'media_too_large', 'media_rate_limited'],
      },
      handle: async (ctx) => {
        const body = ctx.body as CreateMediaDto;
        return {
          status: 201,
          body: await deps.rpc.call('media', 'media.create', ctx.caller, {
            appId: ctx.app.appId,
            fileName: body.fileName,
            mimeType: body.mimeType,
            size: body.size,
          }),
        };
      },
    },
    {
      method: 'GET',
      path: '/media/:id',
      scope: 'messages:read',
      doc: {
        operationId: 'getMedia',
        tag: 'Media',
        summary: 'Get media',
        description: 'Media the app uploaded or a user sent it, with a download URL valid 1 hour; fetch again after it expires.',
        pathParams: { id: 'Media id (med_…).' },
        success: { status: 200, schema: 'Media', description: 'The media.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => {
        return { status: 200, body: await deps.rpc.call('media', 'media.get', ctx.caller, { appId: ctx.app.appId, mediaId: ctx.params.id }) };
      },
    },
  ];
}
