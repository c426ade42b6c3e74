import type { ServerResponse } from 'node:http';
import type { ListenEvent, ListenSession, RpcCaller } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import type { RpcClient } from '#platform/kafka';
import { log } from '#platform/service-kit';
import { formatCursor } from './listen-query';
import type { ListenPlace } from './listen-streams';
import { sseComment, sseEvent, sseRetry } from './sse-frame';

/** Events one poll brings at most. */
const POLL_LIMIT = 500;
/**
 * How long one poll waits for the first event; the call's timeout adds a margin. A stream's place
 * (ListenStreams) is held until its last poll returns, as the poll holds a dispatcher request slot.
 */
const POLL_WAIT_MS = 10_000;
const POLL_TIMEOUT_MS = POLL_WAIT_MS + 5_000;
/** A comment this often keeps idle proxies and the client's watchdog from closing the stream. */
const HEARTBEAT_MS = 15_000;
/**
 * A stream ends after this long and the client reconnects (from its cursor, losing nothing): each
 * connection authenticates afresh, so a revoked key stops listening within this time.
 */
const MAX_STREAM_MS = 10 * 60_000;
/** Failed polls in a row before the stream ends (the client reconnects, perhaps to a healthier replica). */
const MAX_FAILED_POLLS = 3;

/**
 * Serves one listen session as Server-Sent Events: first a `session` event (its id, signing secret,
 * types and starting cursor; no `id:` line, which browsers' EventSource would take as a resume point), then each public event as `id: <cursor>`,
 * `event: <type>`, `data: <the exact body a delivery sends>`, read from the dispatcher with long
 * polls. Never throws: the response has begun, so a failure ends the stream and the client resumes.
 */
export async function serveListenStream(
  res: ServerResponse,
  args: { rpc: RpcClient; caller: RpcCaller; appId: string; session: ListenSession; place: ListenPlace },
): Promise<void> {
  const { rpc, caller, appId, session, place } = args;
  let ended = false;
  let wakeDrain: (() => void) | null = null;
  const end = () => {
    if (ended) return;
    ended = true;
    wakeDrain?.();
    res.end();
  };
  place.onStop(end);
  res.on('close', end);
  const heartbeat = setInterval(() => write(sseComment('keep-alive')), HEARTBEAT_MS);
  const lifetime = setTimeout(end, MAX_STREAM_MS);
  let after = session.after;
  let failures = 0;

  function write(chunk: string): boolean {
    return ended ? true : res.write(chunk);
  }

  try {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    // Asks buffering proxies (nginx) to pass each event on at once.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    write(sseRetry(1000));
    // The cursor the stream starts from: a client that keeps it resumes from here even if killed before its first event.
    const cursor = formatCursor({ sessionId: session.sessionId, seq: after });
    write(sseEvent({ event: 'session', data: JSON.stringify({ sessionId: session.sessionId, secret: session.secret, events: session.events, cursor }) }));
    while (!ended) {
      let events: ListenEvent[];
      try {
        ({ events } = await rpc.call(
          'webhooks',
          'listen.poll',
          caller,
          { appId, sessionId: session.sessionId, after, limit: POLL_LIMIT, waitMs: POLL_WAIT_MS },
          POLL_TIMEOUT_MS,
        ));
        failures = 0;
      } catch (error) {
        failures += 1;
        // The session expired under us, or the dispatcher keeps failing: end; the client reconnects.
        if ((isDomainError(error) && error.code === 'not_found') || failures >= MAX_FAILED_POLLS) break;
        log('warn', 'listen poll failed', { error: String((error as Error)?.message ?? error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      let writable = true;
      for (const event of events) {
        writable = write(sseEvent({ id: formatCursor({ sessionId: session.sessionId, seq: event.seq }), event: event.type, data: event.payload }));
        after = event.seq;
      }
      // A slow reader holds the next poll back instead of filling the gateway's memory.
      if (!writable && !ended)
        await new Promise<void>((resolve) => {
          wakeDrain = resolve;
          res.once('drain', resolve);
        });
      wakeDrain = null;
    }
  } catch (error) {
    log('error', 'listen stream failed', { error: String((error as Error)?.stack ?? error) });
  } finally {
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    place.release();
    end();
  }
}
