import { randomBytes } from 'node:crypto';
import {
  api,
  appWithTester,
  eventually,
  expectStatus,
  registerWebhook,
  requestsTo,
  spansOfTrace,
  startWebhookReceiver,
  unique,
  type HttpsReceiver,
  type ReceivedSpan,
} from '#platform/testing';

/** The receiver no other file in this folder uses at once (TEST_WEBHOOK_HOSTS[3]). */
const RECEIVER_INDEX = 3;
let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(RECEIVER_INDEX);
});
afterAll(async () => {
  await receiver?.close();
});

const has = (spans: ReceivedSpan[], service: string, name: string, kind: number) =>
  spans.some((s) => s.service === service && s.name === name && s.kind === kind);

describe('traces leave the process (e2e): OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports one send as one trace: HTTP, the RPC client and server, Postgres, the outbox publish, the events applied, the webhook attempt, each linked to its parent', async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: RECEIVER_INDEX });
    // The client's own trace: the platform continues it.
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const sent = expectStatus(
      await api(
        'POST',
        '/messages',
        app.sandboxKey,
        { to: { appUserId }, type: 'text', text: 'traced' },
        { 'idempotency-key': unique('idem-'), traceparent: `00-${traceId}-${clientSpanId}-01` },
      ),
      202,
    );
    expect(sent.headers.get('traceparent')).toMatch(new RegExp(`^00-${traceId}-`));
    await receiver.waitFor(() => requestsTo(receiver, hook.path).some((r) => r.rawBody.toString().includes(sent.body.id)), 15_000);
    // A read in the same trace: its Postgres statement is a span of messaging's request.
    expectStatus(await api('GET', `/messages/${sent.body.id}`, app.sandboxKey, undefined, { traceparent: `00-${traceId}-${clientSpanId}-01` }), 200);

    const spans = await eventually(async () => {
      const found = await spansOfTrace(traceId);
      const complete =
        has(found, 'gateway', 'POST /platform/v1/messages', 2) &&
        has(found, 'gateway', 'messaging messages.send', 3) &&
        has(found, 'messaging', 'rpc messages.send', 2) &&
        has(found, 'webhook-dispatcher', 'webhook attempt', 3) &&
        // The read's spans on both sides: the gateway's may reach the collector in a later export than messaging's.
        has(found, 'gateway', 'GET /platform/v1/messages/:id', 2) &&
        has(found, 'gateway', 'messaging messages.get', 3) &&
        has(found, 'messaging', 'rpc messages.get', 2) &&
        found.some((s) => s.service === 'messaging' && s.attributes['db.system.name'] === 'postgresql') &&
        found.some((s) => s.service === 'messaging' && s.kind === 4) &&
        found.some((s) => s.service === 'chat-sim' && s.kind === 5) &&
        found.some((s) => s.service === 'webhook-dispatcher' && s.kind === 5);
      return complete ? found : null;
    }, 20_000);
    // Statements are shown without their values (MikroORM inlines them into the SQL).
    const statements = spans.filter((s) => s.attributes['db.system.name'] === 'postgresql').map((s) => String(s.attributes['db.query.text'] ?? ''));
    expect(statements.some((text) => /messaging\.messages/.test(text))).toBe(true);
    for (const text of statements) expect({ text, leaks: text.includes(sent.body.id) || text.includes(app.appId) }).toEqual({ text, leaks: false });
    // Every event applied hangs below the outbox relay's publish of it (PRODUCER, then CONSUMER).
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const consumed = spans.filter((s) => s.kind === 5);
    expect(consumed.map((s) => `${s.service} ${s.name} below ${byId.get(s.parentSpanId ?? '')?.kind}`)).toEqual(
      consumed.map((s) => `${s.service} ${s.name} below 4`),
    );
    // One tree hanging from the client's span: every other span's parent is a span of the trace.
    const ids = new Set(spans.map((s) => s.spanId));
    const dangling = spans.filter((s) => !(s.parentSpanId !== null && ids.has(s.parentSpanId)));
    expect(dangling.map((s) => ({ span: `${s.service} ${s.name}`, parent: s.parentSpanId }))).toEqual([
      { span: 'gateway POST /platform/v1/messages', parent: clientSpanId },
      { span: 'gateway GET /platform/v1/messages/:id', parent: clientSpanId },
    ]);
  });
});
