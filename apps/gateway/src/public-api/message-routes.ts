import type { EventRef, RpcCaller, SendAcceptance } from '#platform/contracts';
import type { RpcClient } from '#platform/kafka';
import type { PublicRoute } from './public-route';
import { SendMessageDto } from './send-message.dto';

/**
 * D12 "checked on first use": media verifies a pending upload now and answers with the media's
 * events; messaging waits, within the send, until its projection holds them, so it decides on the
 * verdict just reached (one call to messaging, ADR 0214). An unknown id has no events; messaging
 * then answers 400 on mediaId in D9 order.
 */
async function prepareMedia(rpc: RpcClient, caller: RpcCaller, appId: string, mediaId: string): Promise<EventRef[]> {
  return (await rpc.call('media', 'media.prepare', caller, { appId, mediaId })).events;
}

/** POST /messages (idempotent) and GET /messages/{id}: decided and answered by messaging. */
export function messageRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'POST',
      path: '/messages',
      scope: 'messages:send',
      body: SendMessageDto,
      doc: {
        operationId: 'sendMessage',
        tag: 'Messages',
        summary: 'Send a message',
        description:
          'Accepted only for a recipient who opted in to the app and whom the app may reach. Outside the 24-hour reply window at most 3 business-initiated messages per user per 24 hours. The same Idempotency-Key with the same body within 24 hours replays the first answer and sends nothing twice.',
        success: { status: 202, schema: 'SendAcceptance', description: 'Accepted; message.status events follow.' },
        errors: [
          'consent_required',
          'recipient_not_tester',
          'recipient_outside_org',
          'recipient_org_blocks_businesses',
          'recipient_unavailable',
          'email_addressing_not_allowed',
          'recipient_not_found',
          'media_not_uploaded',
          'media_invalid',
          'template_not_found',
          'template_not_approved',
          'business_initiated_cap',
          'daily_quota_exceeded',
        ],
      },
      idempotent: {
        heldKey: async (caller, appId, idempotency) => {
          const { held } = await deps.rpc.call('messaging', 'messages.heldKey', caller, {
            appId,
            idempotencyKey: idempotency.key,
            bodyHash: idempotency.bodyHash,
          });
          return held ? { status: 202, body: held.acceptance, headers: { 'Idempotent-Replayed': 'true' } } : null;
        },
        // Messaging claims the key in the transaction that creates the message, at the same time.
        recordedAt: (result) => Date.parse((result.body as SendAcceptance).createdAt),
      },
      handle: async (ctx) => {
        const body = ctx.body as SendMessageDto;
        const mediaEvents = body.mediaId ? await prepareMedia(deps.rpc, ctx.caller, ctx.app.appId, body.mediaId) : [];
        const { acceptance, replayed } = await deps.rpc.call('messaging', 'messages.send', ctx.caller, {
          appId: ctx.app.appId,
          keyEnvironment: ctx.key.environment,
          idempotencyKey: ctx.idempotency!.key,
          bodyHash: ctx.idempotency!.bodyHash,
          body: {
            to: body.to.appUserId !== undefined ? { appUserId: body.to.appUserId } : { email: body.to.email },
            type: body.type,
            text: body.text ?? null,
            mediaId: body.mediaId ?? null,
            ...(body.template ? { template: { name: body.template.name, language: body.template.language, variables: { ...body.template.variables } } } : {}),
            clientReference: body.clientReference ?? null,
          },
          ...(mediaEvents.length > 0 ? { mediaEvents } : {}),
        });
        // Messaging holds the key's record: a key it had already accepted is answered as a replay.
        return { status: 202, body: acceptance, headers: replayed ? { 'Idempotent-Replayed': 'true' } : undefined };
      },
    },
    {
      method: 'GET',
      path: '/messages/:id',
      scope: 'messages:read',
      doc: {
        operationId: 'getMessage',
        tag: 'Messages',
        summary: 'Get a message',
        description: 'A message the app sent or received. Another app’s message is not_found.',
        pathParams: { id: 'Message id (msg_…).' },
        success: { status: 200, schema: 'Message', description: 'The message.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => {
        return { status: 200, body: await deps.rpc.call('messaging', 'messages.get', ctx.caller, { appId: ctx.app.appId, messageId: ctx.params.id }) };
      },
    },
  ];
}
