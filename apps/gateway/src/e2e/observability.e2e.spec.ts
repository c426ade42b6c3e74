import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  adminUrl,
  advanceClock,
  api,
  appWithTester,
  createTestApp,
  eventually,
  expectStatus,
  http,
  registerWebhook,
  requestsTo,
  sendMessage,
  simInbox,
  startWebhookReceiver,
  testLogDir,
  unique,
  type HttpsReceiver,
  type ReceivedRequest,
} from '#platform/testing';

const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);

type LogLine = Record<string, unknown> & { msg?: string; level?: string; service?: string; traceId?: string };

/**
 * The JSON lines carrying `traceId` in one stack app's logs: `<TEST_LOG_DIR>/test-<app>.log` (see
 * tools/dev/stack.mjs) and the logs of replacements that crash tests start (`test-<app>-after-crash.log`),
 * which serve the app once those tests have run.
 */
function linesWithTrace(app: string, traceId: string): LogLine[] {
  const dir = testLogDir();
  const files = readdirSync(dir).filter((name) => name === `test-${app}.log` || (name.startsWith(`test-${app}-`) && name.endsWith('.log')));
  const lines: LogLine[] = [];
  for (const text of files.flatMap((name) => readFileSync(path.join(dir, name), 'utf8').split('\n'))) {
    if (!text.includes(traceId)) continue;
    try {
      lines.push(JSON.parse(text) as LogLine);
    } catch {
      // not a JSON line (a crash trace, say)
    }
  }
  return lines;
}

/** The receiver no other test file uses (TEST_WEBHOOK_HOSTS[4]), so files running at once never share a port. */
const RECEIVER_INDEX = 4;
let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(RECEIVER_INDEX);
});
afterAll(async () => {
  await receiver?.close();
});

describe('observability (e2e)', () => {
  it('follows one POST /messages by its traceparent through gateway, messaging and chat-sim, with request id, correlation id and app id on every line', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;

    const res = expectStatus(
      await api('POST', '/messages', app.sandboxKey, { to: { appUserId }, type: 'text', text: 'traced' }, { 'idempotency-key': unique('idem-'), traceparent }),
      202,
    );
    const requestId = res.headers.get('svc-request-id')!;
    expect(requestId).toBeTruthy();
    // The gateway continues the caller's trace in a span of its own and says so.
    expect(res.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(res.headers.get('traceparent')).not.toBe(traceparent);

    // chat-sim's handover consumer put the message in the inbox.
    await eventually(async () => (await simInbox(userId, app.appId)).some((m) => m.messageId === res.body.id), 15_000);

    const expected = { traceId, appId: app.appId };
    const found = (await eventually(async () => {
      const gateway = linesWithTrace('gateway', traceId).filter((l) => l.msg === 'request');
      const messaging = linesWithTrace('messaging', traceId).filter((l) => l.msg === 'rpc handled');
      const handover = linesWithTrace('chat-sim', traceId).filter((l) => l.msg === 'event handled' && l.consumer === 'chat-sim.handover');
      return gateway.length > 0 && messaging.length > 0 && handover.length > 0 ? { gateway, messaging, handover } : null;
    }, 15_000))!;

    expect(found.gateway[0]).toMatchObject({
      ...expected,
      service: 'gateway',
      level: 'info',
      requestId,
      correlationId: requestId,
      route: '/platform/v1/messages',
      status: 202,
    });
    expect(found.messaging[0]).toMatchObject({ ...expected, service: 'messaging', requestId, correlationId: requestId, op: expect.any(String), ok: true });
    expect(found.handover[0]).toMatchObject({ ...expected, service: 'chat-sim', correlationId: requestId, eventId: expect.any(String) });
    // Each unit of work has a span of its own within the one trace.
    const spans = new Set([found.gateway[0].spanId, found.messaging[0].spanId, found.handover[0].spanId]);
    expect(spans.size).toBe(3);
    for (const line of [found.gateway[0], found.messaging[0], found.handover[0]]) {
      expect(typeof line.time === 'string' && !Number.isNaN(Date.parse(line.time))).toBe(true);
    }
  });

  it("runs every webhook attempt of the message.status a POST /messages caused (first try, scheduled retry, replay) in that request's trace", async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: RECEIVER_INDEX });
    const traceId = randomBytes(16).toString('hex');
    const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
    const sentStatusOf = (messageId: string) => (r: ReceivedRequest) => {
      const body = JSON.parse(r.rawBody.toString('utf8'));
      return body.data?.id === messageId && body.data?.status === 'sent';
    };
    let messageId = '';
    let refused = false;
    // The first attempt gets a 503, so the second is one the scheduler picks up after the clock moves.
    receiver.respond((req) => {
      if (refused || req.path !== hook.path || req.method !== 'POST' || !messageId || !sentStatusOf(messageId)(req)) return undefined;
      refused = true;
      return { status: 503 };
    });

    const sent = expectStatus(
      await api(
        'POST',
        '/messages',
        app.sandboxKey,
        { to: { appUserId }, type: 'text', text: 'traced webhook' },
        { 'idempotency-key': unique('idem-'), traceparent },
      ),
      202,
    ).body;
    messageId = sent.id;
    const isSent = sentStatusOf(sent.id);
    await receiver.waitFor(() => requestsTo(receiver, hook.path).some(isSent), 15_000);
    const deliveryId = requestsTo(receiver, hook.path).find(isSent)!.headers['svc-delivery-id'];
    const deliveries = async (query = '') =>
      expectStatus(await api('GET', `/webhook-deliveries${query}`, app.sandboxKey), 200).body.data as { id: string; attempts: number; status: string }[];
    await eventually(async () => (await deliveries()).some((d) => d.id === deliveryId && d.attempts === 1 && d.status === 'pending'), 15_000);
    await advanceClock(11);
    await eventually(async () => (await deliveries('?status=delivered')).some((d) => d.id === deliveryId && d.attempts === 2), 15_000);

    const replay = expectStatus(await api('POST', `/webhook-deliveries/${deliveryId}/replay`, app.sandboxKey), 202).body;
    await receiver.waitFor(() => requestsTo(receiver, hook.path).some((r) => r.headers['svc-delivery-id'] === replay.id), 15_000);
    receiver.respond(() => undefined);

    const attempts = (await eventually(async () => {
      const lines = linesWithTrace('webhook-dispatcher', traceId).filter((l) => l.msg === 'webhook attempt');
      const of = (id: string, attempt: number) => lines.find((l) => l.deliveryId === id && l.attempt === attempt);
      const found = [of(deliveryId, 1), of(deliveryId, 2), of(replay.id, 1)];
      return found.every(Boolean) ? (found as LogLine[]) : null;
    }, 15_000))!;
    const eventId = requestsTo(receiver, hook.path).find(isSent)!.headers['svc-event-id'];
    expect(attempts.map((l) => l.outcome)).toEqual(['status_503', 'status_200', 'status_200']);
    for (const line of attempts)
      expect(line).toMatchObject({ traceId, service: 'webhook-dispatcher', level: 'info', appId: app.appId, eventId, eventType: 'message.status' });
    // Each attempt is a span of its own in the request's trace, not the gateway's span reused.
    const gatewaySpan = linesWithTrace('gateway', traceId).find((l) => l.msg === 'request')?.spanId;
    const spans = new Set([gatewaySpan, ...attempts.map((l) => l.spanId)]);
    expect(spans.size).toBe(4);
  });

  it('starts a new trace when the traceparent is missing or invalid', async () => {
    const app = await createTestApp();
    for (const headers of [{} as Record<string, string>, { traceparent: 'not-a-trace' }, { traceparent: `00-${'0'.repeat(32)}-${'1'.repeat(16)}-01` }]) {
      const res = await api('GET', '/messages/msg_unknown', app.sandboxKey, undefined, headers);
      const returned = res.headers.get('traceparent') ?? '';
      expect(returned).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(returned.slice(3, 35)).not.toBe('0'.repeat(32));
    }
  });

  it('exposes HTTP latency by route template and idempotency replays on the gateway, Kafka consumer lag on messaging and of idle consumers', async () => {
    const { app, appUserId } = await appWithTester();
    expectStatus(await sendMessage(app.sandboxKey, {}), 400);
    const idem = unique('idem-');
    expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'once' }, idem), 202);
    const replay = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'once' }, idem), 202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectStatus(await api('GET', '/messages/msg_unknown', app.sandboxKey), 404);
    const adminOrigin = new URL(adminUrl()).origin;
    const gatewayMetrics = await eventually(async () => {
      const text = (await http<string>(`${adminOrigin}/metrics`)).body;
      return /http_request_duration_seconds_bucket\{[^}]*route="\/platform\/v1\/messages"/.test(text) ? text : null;
    });
    // Raw paths (ids) never become label values: the template does.
    expect(gatewayMetrics).toMatch(/route="\/platform\/v1\/messages\/:id"/);
    expect(gatewayMetrics).not.toMatch(/route="\/platform\/v1\/messages\/msg_/);
    expect(gatewayMetrics).toMatch(/idempotency_replays_total\{[^}]*\} [1-9]/);
    // Where a send's time goes at the gateway: the call to messaging.
    expect(gatewayMetrics).toMatch(/rpc_client_duration_seconds_count\{[^}]*target="messaging",op="messages.send",outcome="ok"[^}]*\} [1-9]/);
    expect(gatewayMetrics).toMatch(/rpc_client_duration_seconds_count\{[^}]*target="messaging",op="messages.get",outcome="refused"[^}]*\} [1-9]/);
    const messagingMetrics = await eventually(async () => {
      const text = (await http<string>(`http://127.0.0.1:${BASE_PORT + 10}/metrics`)).body;
      return /kafka_consumer_lag\{[^}]*consumer="messaging\.[^"]+"[^}]*\} \d+/.test(text) ? text : null;
    }, 15_000);
    expect(messagingMetrics).toMatch(/outbox_backlog_rows\{[^}]*\} \d+/);
    expect(messagingMetrics).toMatch(/kafka_consumer_lag\{[^}]*consumer="messaging\.rpc"/);
    // The call split on messaging's side: the way there (produce to handling) and the handling itself.
    expect(messagingMetrics).toMatch(/rpc_server_wait_seconds_count\{[^}]*op="messages\.send"[^}]*\} [1-9]/);
    expect(messagingMetrics).toMatch(/rpc_server_duration_seconds_count\{[^}]*op="messages\.send",outcome="ok"[^}]*\} [1-9]/);
    expect(messagingMetrics).toMatch(/rpc_server_duration_seconds_count\{[^}]*op="messages\.get",outcome="refused"[^}]*\} [1-9]/);
    // The lag poller reports every partition a consumer holds, batches or not: the dispatcher's
    // media-registry consumer has one series per media.events partition even if no file was ever sent.
    const dispatcherLag = await eventually(async () => {
      const text = (await http<string>(`http://127.0.0.1:${BASE_PORT + 50}/metrics`)).body;
      const series = text.split('\n').filter((line) => /^kafka_consumer_lag\{[^}]*consumer="webhook-dispatcher\.media-registry"/.test(line));
      return series.length > 0 ? series : null;
    }, 15_000);
    expect(new Set(dispatcherLag.map((line) => /partition="(\d+)"/.exec(line)?.[1])).size).toBe(dispatcherLag.length);
  });
});
