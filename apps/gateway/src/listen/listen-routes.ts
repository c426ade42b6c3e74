import { DomainError } from '@platform/errors';
import type { RpcClient } from '@platform/kafka';
import type { PublicRoute } from '../public-api/public-route';
import { parseLastEventId, parseListenQuery } from './listen-query';
import { serveListenStream, type OpenedSession } from './listen-stream';
import type { ListenStreams } from './listen-streams';

/**
 * GET /listen (scope webhooks:manage, sandbox keys only): the app's public events as they happen,
 * as Server-Sent Events, for `platformctl listen` (DESIGN section 11). The session is opened before
 * the stream starts, so a refusal is an ordinary error answer.
 */
export function listenRoutes(deps: { rpc: RpcClient; streams: ListenStreams }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/listen',
      scope: 'webhooks:manage',
      handle: async (ctx) => {
        // Local forwarding is a development tool: a live app's events go to its registered endpoints.
        if (ctx.key.environment !== 'sandbox') throw new DomainError('key_environment_mismatch', 'Listening for events (platformctl listen) takes a sandbox key, not a live key.');
        const { events } = parseListenQuery(ctx.query);
        const resume = parseLastEventId(ctx.headers['last-event-id']);
        const session = await deps.rpc.call<OpenedSession>('webhooks', 'listen.open', ctx.caller, { appId: ctx.app.appId, keyId: ctx.key.id, events, resume });
        return {
          status: 200,
          stream: (res) => serveListenStream(res, { rpc: deps.rpc, caller: ctx.caller, appId: ctx.app.appId, session, streams: deps.streams }),
        };
      },
    },
  ];
}
