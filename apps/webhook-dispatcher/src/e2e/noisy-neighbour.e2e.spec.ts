import {
  api,
  createTestApp,
  eventually,
  expectStatus,
  inParallel,
  queryDatabase,
  registerWebhook,
  requestsTo,
  startWebhookReceiver,
  type HttpsReceiver,
  type RegisteredWebhook,
  type TestApp,
} from '#platform/testing';

/** The test stack's bound on attempts at once to one endpoint (WEBHOOK_ENDPOINT_MAX_IN_FLIGHT's default). */
const ENDPOINT_MAX_IN_FLIGHT = 32;
/** Longer than the 10 s answer limit: every attempt to the hanging endpoint times out. */
const HANG_MS = 30_000;

let noisyReceiver: HttpsReceiver;
let quietReceiver: HttpsReceiver;

beforeAll(async () => {
  noisyReceiver = await startWebhookReceiver(2);
  quietReceiver = await startWebhookReceiver(3);
});
afterAll(async () => {
  await noisyReceiver?.close();
  await quietReceiver?.close();
});

/** POST …/test, again after a 429 (the noise is above the app's request rate on purpose) or a 5xx (a loaded machine's RPC timeout). */
async function testEvent(app: TestApp, hook: RegisteredWebhook): Promise<{ deliveryId: string; requestedAt: number }> {
  for (;;) {
    const requestedAt = Date.now();
    const res = await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey);
    if (res.status === 429 || res.status >= 500) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    return { deliveryId: expectStatus(res, 202).body.deliveryId, requestedAt };
  }
}

interface AttemptRow {
  attempt: number;
  outcome: string;
  error: string | null;
  lateness_ms: number;
}

function attemptsOf(endpointId: string): Promise<AttemptRow[]> {
  return queryDatabase<AttemptRow>(
    `select a.attempt, a.outcome, a.error, (extract(epoch from a.started_at - a.due_at) * 1000)::int as lateness_ms
       from webhook_dispatcher.delivery_attempts a join webhook_dispatcher.deliveries d on d.delivery_id = a.delivery_id
      where d.endpoint_id = $1`,
    [endpointId],
  );
}

describe('tenants do not wait on each other: webhook delivery (e2e)', () => {
  it("a neighbour's failing and hanging endpoints neither delay a quiet app's webhooks nor get more than their share", async () => {
    const noisy = await createTestApp();
    const failing = await registerWebhook(noisy, ['message.status'], { hostIndex: 2 });
    const hanging = await registerWebhook(noisy, ['message.status'], { hostIndex: 2 });
    noisyReceiver.respond((req) => {
      if (req.method !== 'POST') return undefined;
      if (req.path === failing.path) return { status: 500, body: 'down' };
      if (req.path === hanging.path) return { status: 200, delayMs: HANG_MS };
      return undefined;
    });
    const quiet = await createTestApp();
    const healthy = await registerWebhook(quiet, ['message.status'], { hostIndex: 3 });

    try {
      // The noise: 250 deliveries to the hanging endpoint and 100 to the failing one, all due at once.
      const noise = [...Array.from({ length: 250 }, () => hanging), ...Array.from({ length: 100 }, () => failing)];
      await inParallel(noise, 8, (hook) => testEvent(noisy, hook));

      // The quiet app's webhooks, one every 200 ms while the noisy endpoints fail and hang.
      const latencies: number[] = [];
      await inParallel(
        Array.from({ length: 15 }, (_, i) => i),
        3,
        async (i) => {
          await new Promise((resolve) => setTimeout(resolve, i * 200));
          const { deliveryId, requestedAt } = await testEvent(quiet, healthy);
          await quietReceiver.waitFor(() => requestsTo(quietReceiver, healthy.path).some((r) => r.headers['svc-delivery-id'] === deliveryId), 30_000);
          const arrived = requestsTo(quietReceiver, healthy.path).find((r) => r.headers['svc-delivery-id'] === deliveryId)!;
          latencies.push(arrived.receivedAt - requestedAt);
        },
      );
      // Behind a global queue they waited for the hanging attempts' 10 s limit.
      expect(Math.max(...latencies)).toBeLessThan(4_000);

      // The hanging endpoint never held more than its bound of connections, and once it had failed
      // enough its other deliveries were held (recorded, not sent) rather than queued.
      expect(noisyReceiver.openRequests(hanging.path).peak).toBeLessThanOrEqual(ENDPOINT_MAX_IN_FLIGHT);
      const held = await eventually(async () => {
        const rows = (await attemptsOf(hanging.id)).filter((a) => a.outcome === 'held');
        return rows.length >= 100 ? rows : null;
      }, 30_000);
      expect(held[0].error).toBe('not sent: the endpoint is failing (no answer within 10 s)');
      expect(noisyReceiver.openRequests(hanging.path).peak).toBeLessThanOrEqual(ENDPOINT_MAX_IN_FLIGHT);

      // The failing endpoint is slowed the same way; its retries still go out on schedule, on time.
      const retries = await eventually(async () => {
        const rows = (await attemptsOf(failing.id)).filter((a) => a.attempt >= 2);
        return rows.length >= 50 ? rows : null;
      }, 40_000);
      expect((await attemptsOf(failing.id)).some((a) => a.outcome === 'held' && a.error === 'not sent: the endpoint is failing (answered 500)')).toBe(true);
      expect(Math.max(...retries.map((a) => a.lateness_ms))).toBeLessThan(3_000);
      expect(requestsTo(noisyReceiver, failing.path).length).toBeLessThan(100 + retries.length);
    } finally {
      // Their pending deliveries end with the endpoints, so later tests' clock jumps do not retry them.
      await api('DELETE', `/webhooks/${failing.id}`, noisy.sandboxKey);
      await api('DELETE', `/webhooks/${hanging.id}`, noisy.sandboxKey);
      noisyReceiver.respond(() => undefined);
    }
  });
});
