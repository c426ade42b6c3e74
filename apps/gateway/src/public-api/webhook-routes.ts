import { WEBHOOK_DELIVERY_STATUSES, WEBHOOKS, type ErrorDetail, type WebhookDeliveryStatus } from '@platform/contracts';
import { DomainError } from '@platform/errors';
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
  const details: ErrorDetail[] = [];
  const single = (name: string): string | null => {
    const values = query.getAll(name);
    if (values.length > 1) details.push({ field: name, issue: 'must be given at most once' });
    return values.length > 0 ? values[0] : null;
  };
  for (const name of new Set(query.keys())) {
    if (!['status', 'subscriptionId', 'limit', 'cursor'].includes(name)) details.push({ field: name, issue: 'is not a known parameter' });
  }
  const rawStatus = single('status');
  const rawSubscription = single('subscriptionId');
  const rawLimit = single('limit');
  const rawCursor = single('cursor');
  let status: WebhookDeliveryStatus | null = null;
  if (rawStatus !== null) {
    if ((WEBHOOK_DELIVERY_STATUSES as readonly string[]).includes(rawStatus)) status = rawStatus as WebhookDeliveryStatus;
    else details.push({ field: 'status', issue: `must be one of ${WEBHOOK_DELIVERY_STATUSES.join(', ')}` });
  }
  let subscriptionId: string | null = null;
  if (rawSubscription !== null) {
    if (rawSubscription.length >= 1 && rawSubscription.length <= 64) subscriptionId = rawSubscription;
    else details.push({ field: 'subscriptionId', issue: 'must be 1-64 characters' });
  }
  let limit: number = DELIVERIES_LIMIT.default;
  if (rawLimit !== null) {
    const n = /^\d{1,4}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (n >= DELIVERIES_LIMIT.min && n <= DELIVERIES_LIMIT.max) limit = n;
    else details.push({ field: 'limit', issue: `must be an integer from ${DELIVERIES_LIMIT.min} to ${DELIVERIES_LIMIT.max}` });
  }
  let cursor: string | null = null;
  if (rawCursor !== null) {
    if (/^[A-Za-z0-9_-]{1,128}$/.test(rawCursor)) cursor = rawCursor;
    else details.push({ field: 'cursor', issue: 'is not a cursor from a previous page' });
  }
  if (details.length > 0) throw DomainError.invalid(details);
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
