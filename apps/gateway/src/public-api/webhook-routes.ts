import { RECOVER_CALL_TIMEOUT_MS, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_URL_REFUSAL_CODES, WEBHOOKS, type WebhookDeliveryStatus } from '#platform/contracts';
import { readQuery, type QuerySpec } from '../http/query-params';
import type { RpcClient } from '#platform/kafka';
import type { PublicRoute } from './public-route';
import { CreateWebhookDto, RecoverWebhookDto, UpdateWebhookDto, VerifyWebhookDto } from './webhook.dto';

/** Calls that run a handshake wait up to 5 s for the receiver, plus DNS: give them room beyond the usual RPC timeout. */
const HANDSHAKE_CALL_TIMEOUT_MS = WEBHOOKS.handshakeTimeoutMs + 10_000;

const ENDPOINT_ID = { id: 'Webhook endpoint id (we_…).' };

/** D23: GET /webhook-deliveries page size. */
export const DELIVERIES_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** GET /webhook-deliveries' parameters (D23): what the parser reads and the document shows. */
export const DELIVERIES_QUERY: QuerySpec = {
  refuseUnknown: true,
  params: [
    { name: 'status', kind: 'enum', values: WEBHOOK_DELIVERY_STATUSES, description: 'Only deliveries with this status.' },
    {
      name: 'subscriptionId',
      kind: 'string',
      minLength: 1,
      maxLength: 64,
      issue: 'must be 1-64 characters',
      description: 'Only deliveries to this endpoint (we_…).',
    },
    { name: 'limit', kind: 'limit', ...DELIVERIES_LIMIT, description: 'Page size.' },
    {
      name: 'cursor',
      kind: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: /^[A-Za-z0-9_-]{1,128}$/,
      issue: 'is not a cursor from a previous page',
      description: 'nextCursor of the previous page.',
    },
  ],
};

export interface DeliveriesQuery {
  status: WebhookDeliveryStatus | null;
  subscriptionId: string | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /webhook-deliveries' query, listing every bad parameter at once (400 invalid_request). */
export function parseDeliveriesQuery(query: URLSearchParams): DeliveriesQuery {
  const q = readQuery(DELIVERIES_QUERY, query);
  return {
    status: q.status as WebhookDeliveryStatus | null,
    subscriptionId: q.subscriptionId as string | null,
    limit: q.limit as number,
    cursor: q.cursor as string | null,
  };
}

/** /webhooks and /webhook-deliveries (scope webhooks:manage): answered by the webhook dispatcher. */
export function webhookRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  const endpoint = (ctx: { params: Record<string, string>; app: { appId: string } }) => ({ appId: ctx.app.appId, endpointId: ctx.params.id });
  return [
    {
      method: 'GET',
      path: '/webhooks',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'listWebhookEndpoints',
        tag: 'Webhook endpoints',
        summary: 'List webhook endpoints',
        success: { status: 200, schema: 'WebhookEndpointList', description: 'Every endpoint of the app, oldest first.' },
      },
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.list', ctx.caller, { appId: ctx.app.appId }) }),
    },
    {
      method: 'POST',
      path: '/webhooks',
      scope: 'webhooks:manage',
      body: CreateWebhookDto,
      doc: {
        operationId: 'createWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Add a webhook endpoint',
        description:
          'Runs the handshake (a GET with svc.mode=subscribe, svc.verify_token and svc.challenge; the receiver answers 200 with the challenge within 5 seconds). Answers 201 whatever the handshake gave: enabled if it succeeded, else pending_verification with lastVerificationError. The signing secret is returned this once. At most 5 endpoints per app.',
        success: { status: 201, schema: 'WebhookEndpointWithSecret', description: 'The endpoint, with its signing secret.' },
        errors: ['subscription_limit_reached', ...WEBHOOK_URL_REFUSAL_CODES],
      },
      handle: async (ctx) => {
        const body = ctx.body as CreateWebhookDto;
        const payload = { appId: ctx.app.appId, url: body.url, verifyToken: body.verifyToken, events: body.events };
        return { status: 201, body: await deps.rpc.call('webhooks', 'endpoints.create', ctx.caller, payload, HANDSHAKE_CALL_TIMEOUT_MS) };
      },
    },
    {
      method: 'GET',
      path: '/webhooks/:id',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'getWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Get a webhook endpoint',
        pathParams: ENDPOINT_ID,
        success: { status: 200, schema: 'WebhookEndpoint', description: 'The endpoint.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.get', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'PATCH',
      path: '/webhooks/:id',
      scope: 'webhooks:manage',
      body: UpdateWebhookDto,
      doc: {
        operationId: 'updateWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Change a webhook endpoint',
        description: 'Changes its events; a new url needs verifyToken and runs the handshake again.',
        pathParams: ENDPOINT_ID,
        success: { status: 200, schema: 'WebhookEndpoint', description: 'The endpoint after the change.' },
        errors: ['not_found', ...WEBHOOK_URL_REFUSAL_CODES],
      },
      handle: async (ctx) => {
        const body = ctx.body as UpdateWebhookDto;
        const payload = { ...endpoint(ctx), url: body.url, verifyToken: body.verifyToken, events: body.events };
        return { status: 200, body: await deps.rpc.call('webhooks', 'endpoints.update', ctx.caller, payload, HANDSHAKE_CALL_TIMEOUT_MS) };
      },
    },
    {
      method: 'DELETE',
      path: '/webhooks/:id',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'deleteWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Remove a webhook endpoint',
        pathParams: ENDPOINT_ID,
        success: { status: 204, description: 'Removed.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => {
        await deps.rpc.call('webhooks', 'endpoints.delete', ctx.caller, endpoint(ctx));
        return { status: 204 };
      },
    },
    {
      method: 'POST',
      path: '/webhooks/:id/verify',
      scope: 'webhooks:manage',
      body: VerifyWebhookDto,
      doc: {
        operationId: 'verifyWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Verify a webhook endpoint again',
        description: 'Runs the handshake again with the endpoint’s verify token; a success enables it (also after it was disabled).',
        pathParams: ENDPOINT_ID,
        success: { status: 200, schema: 'WebhookEndpoint', description: 'The endpoint after the handshake.' },
        errors: ['not_found', 'verify_token_mismatch', ...WEBHOOK_URL_REFUSAL_CODES],
      },
      handle: async (ctx) => {
        const payload = { ...endpoint(ctx), verifyToken: (ctx.body as VerifyWebhookDto).verifyToken };
        return { status: 200, body: await deps.rpc.call('webhooks', 'endpoints.verify', ctx.caller, payload, HANDSHAKE_CALL_TIMEOUT_MS) };
      },
    },
    {
      method: 'POST',
      path: '/webhooks/:id/test',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'testWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Send a test event',
        description: 'Delivers a signed webhook.test event to this endpoint only.',
        pathParams: ENDPOINT_ID,
        success: { status: 202, schema: 'WebhookTestAccepted', description: 'The test delivery is on its way.' },
        errors: ['not_found', 'subscription_not_verified'],
      },
      handle: async (ctx) => ({ status: 202, body: await deps.rpc.call('webhooks', 'endpoints.test', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'POST',
      path: '/webhooks/:id/rotate-secret',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'rotateWebhookSecret',
        tag: 'Webhook endpoints',
        summary: 'Rotate the signing secret',
        description: 'Returns a new secret, shown this once; the previous one keeps signing beside it for 24 hours (two v1 values in Svc-Signature).',
        pathParams: ENDPOINT_ID,
        success: { status: 200, schema: 'RotatedSecret', description: 'The new secret.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.rotateSecret', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'POST',
      path: '/webhooks/:id/recover',
      scope: 'webhooks:manage',
      body: RecoverWebhookDto,
      doc: {
        operationId: 'recoverWebhookEndpoint',
        tag: 'Webhook endpoints',
        summary: 'Recover missed events',
        description:
          'After an outage: one new delivery for each event since `since` (at most 7 days ago, not in the future) that the endpoint subscribes to now and has neither received nor still has a delivery pending for; events it received are not sent again. The deliveries are scheduled like any other (the same event ids and bytes, retried the same way). The endpoint must be enabled. One recovery at a time: while a delivery a recovery created is pending, another is 409 recover_in_progress.',
        pathParams: ENDPOINT_ID,
        success: { status: 202, schema: 'WebhookRecoveryAccepted', description: 'The deliveries are on their way.' },
        errors: ['not_found', 'endpoint_disabled', 'subscription_not_verified', 'recover_in_progress'],
      },
      handle: async (ctx) => {
        const payload = { ...endpoint(ctx), since: (ctx.body as RecoverWebhookDto).since };
        return { status: 202, body: await deps.rpc.call('webhooks', 'endpoints.recover', ctx.caller, payload, RECOVER_CALL_TIMEOUT_MS) };
      },
    },
    {
      method: 'GET',
      path: '/webhook-deliveries',
      scope: 'webhooks:manage',
      query: DELIVERIES_QUERY,
      doc: {
        operationId: 'listWebhookDeliveries',
        tag: 'Webhook deliveries',
        summary: 'List webhook deliveries',
        description: 'Newest first. Follow nextCursor for the next page.',
        success: { status: 200, schema: 'WebhookDeliveryPage', description: 'One page.' },
      },
      handle: async (ctx) => ({
        status: 200,
        body: await deps.rpc.call('webhooks', 'deliveries.list', ctx.caller, { appId: ctx.app.appId, ...parseDeliveriesQuery(ctx.query) }),
      }),
    },
    {
      method: 'POST',
      path: '/webhook-deliveries/:id/replay',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'replayWebhookDelivery',
        tag: 'Webhook deliveries',
        summary: 'Replay a delivery',
        description: 'A new delivery of the same event id and payload bytes. Only delivered or failed deliveries, for 7 days after the event.',
        pathParams: { id: 'Delivery id (wd_…).' },
        success: { status: 202, schema: 'WebhookDelivery', description: 'The new delivery.' },
        errors: ['not_found', 'delivery_in_progress', 'payload_expired'],
      },
      handle: async (ctx) => {
        return { status: 202, body: await deps.rpc.call('webhooks', 'deliveries.replay', ctx.caller, { appId: ctx.app.appId, deliveryId: ctx.params.id }) };
      },
    },
  ];
}
