import { WEBHOOK_DELIVERY_STATUSES, WEBHOOKS, type WebhookDeliveryStatus } from '@platform/contracts';
import { QueryReader } from '../http/query-reader';
import type { RpcClient } from '@platform/kafka';
import { checkPathId } from './consent-routes';
import type { PublicRoute } from './public-route';
import { CreateWebhookDto, UpdateWebhookDto, VerifyWebhookDto } from './webhook.dto';

/** Calls that run a handshake wait up to 5 s for the receiver, plus DNS: give them room beyond the usual RPC timeout. */
const HANDSHAKE_CALL_TIMEOUT_MS = WEBHOOKS.handshakeTimeoutMs + 10_000;

/** D23: GET /webhook-deliveries page size. */
export const DELIVERIES_LIMIT = { min: 1, max: 100, default: 20 } as const;

export interface DeliveriesQuery {
  status: WebhookDeliveryStatus | null;
  subscriptionId: string | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /webhook-deliveries' query, listing every bad parameter at once (400 invalid_request). */
export function parseDeliveriesQuery(query: URLSearchParams): DeliveriesQuery {
  const reader = new QueryReader(query);
  for (const name of new Set(query.keys())) {
    if (!['status', 'subscriptionId', 'limit', 'cursor'].includes(name)) reader.details.push({ field: name, issue: 'is not a known parameter' });
  }
  const status = reader.oneOf<WebhookDeliveryStatus>('status', WEBHOOK_DELIVERY_STATUSES);
  const limit = reader.limit(DELIVERIES_LIMIT);
  const rawSubscription = reader.single('subscriptionId');
  let subscriptionId: string | null = null;
  if (rawSubscription !== null) {
    if (rawSubscription.length >= 1 && rawSubscription.length <= 64) subscriptionId = rawSubscription;
    else reader.details.push({ field: 'subscriptionId', issue: 'must be 1-64 characters' });
  }
  const rawCursor = reader.single('cursor');
  let cursor: string | null = null;
  if (rawCursor !== null) {
    if (/^[A-Za-z0-9_-]{1,128}$/.test(rawCursor)) cursor = rawCursor;
    else reader.details.push({ field: 'cursor', issue: 'is not a cursor from a previous page' });
  }
  reader.done();
  return { status, subscriptionId, limit, cursor };
}

/** /webhooks and /webhook-deliveries (scope webhooks:manage): answered by the webhook dispatcher. */
export function webhookRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  const endpoint = (ctx: { params: Record<string, string>; app: { appId: string } }) => {
    checkPathId('id', ctx.params.id);
    return { appId: ctx.app.appId, endpointId: ctx.params.id };
  };
  return [
    {
      method: 'GET',
      path: '/webhooks',
      scope: 'webhooks:manage',
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.list', ctx.caller, { appId: ctx.app.appId }) }),
    },
    {
      method: 'POST',
      path: '/webhooks',
      scope: 'webhooks:manage',
      body: CreateWebhookDto,
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
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.get', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'PATCH',
      path: '/webhooks/:id',
      scope: 'webhooks:manage',
      body: UpdateWebhookDto,
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
      handle: async (ctx) => {
        const payload = { ...endpoint(ctx), verifyToken: (ctx.body as VerifyWebhookDto).verifyToken };
        return { status: 200, body: await deps.rpc.call('webhooks', 'endpoints.verify', ctx.caller, payload, HANDSHAKE_CALL_TIMEOUT_MS) };
      },
    },
    {
      method: 'POST',
      path: '/webhooks/:id/test',
      scope: 'webhooks:manage',
      handle: async (ctx) => ({ status: 202, body: await deps.rpc.call('webhooks', 'endpoints.test', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'POST',
      path: '/webhooks/:id/rotate-secret',
      scope: 'webhooks:manage',
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'endpoints.rotateSecret', ctx.caller, endpoint(ctx)) }),
    },
    {
      method: 'GET',
      path: '/webhook-deliveries',
      scope: 'webhooks:manage',
      handle: async (ctx) => ({ status: 200, body: await deps.rpc.call('webhooks', 'deliveries.list', ctx.caller, { appId: ctx.app.appId, ...parseDeliveriesQuery(ctx.query) }) }),
    },
    {
      method: 'POST',
      path: '/webhook-deliveries/:id/replay',
      scope: 'webhooks:manage',
      handle: async (ctx) => {
        checkPathId('id', ctx.params.id);
        return { status: 202, body: await deps.rpc.call('webhooks', 'deliveries.replay', ctx.caller, { appId: ctx.app.appId, deliveryId: ctx.params.id }) };
      },
    },
  ];
}
