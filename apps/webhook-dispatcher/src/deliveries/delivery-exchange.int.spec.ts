import {
  advanceClock,
  api,
  createTestApp,
  eventually,
  expectStatus,
  queryDatabase,
  registerWebhook,
  requestsTo,
  startWebhookReceiver,
  type HttpsReceiver,
} from '#platform/testing';

/**
 * What the dispatcher keeps of each attempt's exchange (ADR 0220), through the running dispatcher
 * to a real HTTPS receiver, read back from Postgres: every request header exactly as the receiver
 * got it, the duration, the response body's first 2 KiB as text; all of it gone 7 days on.
 */
let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(1);
});
afterAll(async () => {
  await receiver?.close();
});

interface AttemptRecord {
  attempt: number;
  duration_ms: number;
  response_status: number | null;
  request_headers: { name: string; value: string }[] | null;
  response_excerpt: string | null;
}

const attemptsOf = (endpointId: string) =>
  queryDatabase<AttemptRecord>(
    `select a.attempt, a.duration_ms, a.response_status, a.request_headers, a.response_excerpt
       from webhook_dispatcher.delivery_attempts a join webhook_dispatcher.deliveries d using (delivery_id)
      where d.endpoint_id = $1 order by a.attempt`,
    [endpointId],
  );

describe('delivery attempt exchange record (integration)', () => {
  it('records the headers sent, the duration and the first 2 KiB of the answer, and drops them with the payload', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 1 });
    // A slow 503 whose body starts with invalid UTF-8 and a NUL, and runs far past 2 KiB; then a quick empty 200.
    const busy = Buffer.concat([Buffer.from('busy '), Buffer.from([0xff, 0x00]), Buffer.alloc(70_000, 'x')]);
    let posts = 0;
    receiver.respond((req) => {
      if (req.path !== hook.path || req.method !== 'POST') return undefined;
      posts++;
      return posts === 1 ? { status: 503, body: busy, delayMs: 300 } : { status: 200, body: '' };
    });

    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    const [first] = await eventually(async () => {
      const rows = await attemptsOf(hook.id);
      return rows.length === 1 ? rows : null;
    }, 15_000);
    const [sent] = requestsTo(receiver, hook.path);

    expect(first.response_status).toBe(503);
    expect(first.duration_ms).toBeGreaterThanOrEqual(300);
    expect(first.response_excerpt).toBe(`busy \uFFFD\uFFFD${'x'.repeat(2048 - 7)}`);
    // Every header the receiver got, with its value, and no other: the record is what was sent.
    const recorded = first.request_headers ?? [];
    expect(Object.fromEntries(recorded.map((h) => [h.name.toLowerCase(), h.value]))).toEqual(sent.headers);
    expect(recorded.map((h) => h.name)).toEqual(
      expect.arrayContaining(['Content-Type', 'User-Agent', 'Svc-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'Host']),
    );
    expect(JSON.stringify(recorded)).not.toContain(hook.secret);

    // The retry (due 10 s on) is signed anew at its own time: its own headers, and an empty answer.
    await advanceClock(15);
    const [, second] = await eventually(async () => {
      const rows = await attemptsOf(hook.id);
      return rows.length === 2 ? rows : null;
    }, 15_000);
    expect([second.response_status, second.response_excerpt]).toEqual([200, '']);
    const header = (rows: AttemptRecord['request_headers'], name: string) => rows?.find((h) => h.name === name)?.value;
    expect(header(second.request_headers, 'Svc-Delivery-Attempt')).toBe('2');
    expect(header(second.request_headers, 'Svc-Signature')).not.toBe(header(first.request_headers, 'Svc-Signature'));

    // Kept 7 days, then neither is there (the attempts themselves stay).
    await advanceClock(8 * 24 * 3600);
    const cleared = await eventually(async () => {
      const rows = await attemptsOf(hook.id);
      return rows.every((r) => r.request_headers === null && r.response_excerpt === null) ? rows : null;
    }, 15_000);
    expect(cleared.map((r) => [r.attempt, r.response_status])).toEqual([
      [1, 503],
      [2, 200],
    ]);
  });
});
