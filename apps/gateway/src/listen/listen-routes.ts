import { DomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';
import type { PublicRoute } from '../public-api/public-route';
import { LISTEN_QUERY, parseLastEventId, parseListenQuery } from './listen-query';
import { serveListenStream } from './listen-stream';
import { MAX_LISTEN_STREAMS_PER_APP, type ListenStreams } from './listen-streams';

/**
 * GET /listen (scope webhooks:manage, sandbox keys only): the app's public events as they happen,
 * as Server-Sent Events, for `platformctl listen` (architecture section 11). The session is opened before
 * the stream starts, so a refusal is an ordinary error answer.
 */
export function listenRoutes(deps: { rpc: RpcClient; streams: ListenStreams }): PublicRoute[] {
  return [
    {
      method: 'GET',
      path: '/listen',
      scope: 'webhooks:manage',
      query: LISTEN_QUERY,
      doc: {
        operationId: 'listen',
        tag: 'Webhook endpoints',
        summary: 'Receive events as a stream (local development)',
        description:
          "What `platformctl listen` reads: the app's events as they happen, as Server-Sent Events, without a public URL or a registered endpoint. Sandbox keys only (a live key is 403 key_environment_mismatch). The first event, `session`, carries the session's signing secret (stable per key); each event after it has the event type as its name, its cursor as id and the exact delivery body as data. Reconnect with `Last-Event-ID` to resume without losing events.",
        requestHeaders: { 'Last-Event-ID': 'The id of the last event received, to resume after it.' },
        success: {
          status: 200,
          description: 'The event stream; it ends after 10 minutes and the client reconnects.',
          mediaType: {
            type: 'text/event-stream',
            schema: { type: 'string', description: 'Server-Sent Events.' },
            example:
              'event: session\ndata: {"sessionId":"ls_01JD3QF1A2B3C4D5E6F7G8H9J0","secret":"whsec_4Xk9Qm2Zp7Lr5Tb1Vc8Nw3Hy6Jd0Fs2A","events":["message.status"],"cursor":"ls_01JD3QF1A2B3C4D5E6F7G8H9J0.0"}\n\nid: ls_01JD3QF1A2B3C4D5E6F7G8H9J0.1\nevent: message.status\ndata: {"id":"evt_01JD3QD6K9M2P5S8V1Y4B7E0GJ","type":"message.status",…}\n\n',
          },
        },
      },
      handle: async (ctx) => {
        // Local forwarding is a development tool: a live app's events go to its registered endpoints.
        if (ctx.key.environment !== 'sandbox')
          throw new DomainError('key_environment_mismatch', 'Listening for events (platformctl listen) takes a sandbox key, not a live key.');
        const { events } = parseListenQuery(ctx.query);
        const place = deps.streams.reserve(ctx.app.appId);
        if (!place) throw DomainError.rateLimited(`An app may have ${MAX_LISTEN_STREAMS_PER_APP} listen streams open at once; end one first.`, 5);
        try {
          const resume = parseLastEventId(ctx.headers['last-event-id']);
          const opened = await deps.rpc.call('webhooks', 'listen.open', ctx.caller, { appId: ctx.app.appId, keyId: ctx.key.id, events, resume });
          return { status: 200, stream: (res) => serveListenStream(res, { rpc: deps.rpc, caller: ctx.caller, appId: ctx.app.appId, session: opened, place }) };
        } catch (error) {
          place.release();
          throw error;
        }
      },
    },
  ];
}
