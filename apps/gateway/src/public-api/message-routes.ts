import type { RpcClient } from '@platform/kafka';
import { checkPathId } from './consent-routes';
import type { PublicRoute } from './public-route';
import { SendMessageDto } from './send-message.dto';

/** POST /messages (idempotent) and GET /messages/{id}: decided and answered by messaging. */
export function messageRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'POST',
      path: '/messages',
      scope: 'messages:send',
      body: SendMessageDto,
      idempotent: true,
      handle: async (ctx) => {
        const body = ctx.body as SendMessageDto;
        const { acceptance, replayed } = await deps.rpc.call<{ acceptance: unknown; replayed: boolean }>('messaging', 'messages.send', ctx.caller, {
          appId: ctx.app.appId,
          keyEnvironment: ctx.key.environment,
          idempotencyKey: ctx.idempotency!.key,
          bodyHash: ctx.idempotency!.bodyHash,
          body: {
            to: body.to.appUserId !== undefined ? { appUserId: body.to.appUserId } : { email: body.to.email },
            type: body.type,
            text: body.text ?? null,
            mediaId: body.mediaId ?? null,
            clientReference: body.clientReference ?? null,
          },
        });
        // Messaging had already accepted this key (a gateway died before storing the answer): a replay.
        return { status: 202, body: acceptance, headers: replayed ? { 'Idempotent-Replayed': 'true' } : undefined };
      },
    },
    {
      method: 'GET',
      path: '/messages/:id',
      scope: 'messages:read',
      handle: async (ctx) => {
        checkPathId('id', ctx.params.id);
        return { status: 200, body: await deps.rpc.call('messaging', 'messages.get', ctx.caller, { appId: ctx.app.appId, messageId: ctx.params.id }) };
      },
    },
  ];
}
