import { APP_EVENT_TYPES, type AppEventType } from '#platform/contracts';
import type { RpcClient } from '#platform/kafka';
import { readQuery, type QuerySpec } from '../http/query-params';
import type { PublicRoute } from './public-route';

/** GET /events page size (ADR 0223, like the other lists). */
export const EVENTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

/** GET /events' parameters (ADR 0223): what the parser reads and the document shows. */
export const EVENTS_QUERY: QuerySpec = {
  refuseUnknown: true,
  params: [
    { name: 'type', kind: 'enum', values: APP_EVENT_TYPES, description: 'Only events of this type.' },
    {
      name: 'createdAfter',
      kind: 'datetime',
      description: 'Only events that happened at or after this time (RFC 3339). With whole seconds it compares as the envelope’s `created` does.',
    },
    { name: 'createdBefore', kind: 'datetime', description: 'Only events that happened before this time (RFC 3339).' },
    { name: 'limit', kind: 'limit', ...EVENTS_LIMIT, description: 'Page size.' },
    {
      name: 'cursor',
      kind: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: /^[A-Za-z0-9_-]{1,128}$/,
      issue: 'is not a cursor from a previous page',
      description: 'nextCursor of the previous page (give the same filters again).',
    },
  ],
};

export interface EventsQuery {
  type: AppEventType | null;
  createdAfter: string | null;
  createdBefore: string | null;
  limit: number;
  cursor: string | null;
}

/** Validates GET /events' query, listing every bad parameter at once (400 invalid_request). */
export function parseEventsQuery(query: URLSearchParams): EventsQuery {
  const q = readQuery(EVENTS_QUERY, query);
  return {
    type: q.type as AppEventType | null,
    createdAfter: q.createdAfter as string | null,
    createdBefore: q.createdBefore as string | null,
    limit: q.limit as number,
    cursor: q.cursor as string | null,
  };
}

/** GET /events and GET /events/{id} (scope webhooks:manage): the app's kept events, answered by the webhook dispatcher. */
export function eventRoutes(deps: { rpc: RpcClient }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/events',
      scope: 'webhooks:manage',
      query: EVENTS_QUERY,
      doc: {
        operationId: 'listEvents',
        tag: 'Events',
        summary: 'List events',
        description:
          'The app’s events of the last 30 days, newest first, each exactly as its webhook deliveries carry it (same id, same bytes), whether or not an endpoint subscribed to it. webhook.test events are not listed. An event is listed once the platform has taken it in, usually within a second of its `created`; a message.received waits until its files can be fetched (at most a minute). Follow nextCursor for the next page.',
        success: { status: 200, schema: 'EventPage', description: 'One page.' },
      },
      handle: async (ctx) => ({
        status: 200,
        body: await deps.rpc.call('webhooks', 'events.list', ctx.caller, { appId: ctx.app.appId, ...parseEventsQuery(ctx.query) }),
      }),
    },
    {
      method: 'GET',
      path: '/events/:id',
      scope: 'webhooks:manage',
      doc: {
        operationId: 'getEvent',
        tag: 'Events',
        summary: 'Get an event',
        description: 'One event of the last 30 days, exactly as its deliveries carry it. Another app’s event, or one older than 30 days, is not_found.',
        pathParams: { id: 'Event id (evt_…).' },
        success: { status: 200, schema: 'WebhookEvent', description: 'The event.' },
        errors: ['not_found'],
      },
      handle: async (ctx) => ({
        status: 200,
        body: await deps.rpc.call('webhooks', 'events.get', ctx.caller, { appId: ctx.app.appId, eventId: ctx.params.id }),
      }),
    },
  ];
}
