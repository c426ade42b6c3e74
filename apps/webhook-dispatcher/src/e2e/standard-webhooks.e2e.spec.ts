import {
  advanceClock,
  api,
  appWithTester,
  createTestApp,
  expectStatus,
  platformNow,
  registerWebhook,
  requestsTo,
  sendMessage,
  standardWebhooksAccepts,
  startWebhookReceiver,
  stripeAccepts,
  type HttpsReceiver,
  type ReceivedRequest,
} from '#platform/testing';
import { Webhook } from 'standardwebhooks';

/**
 * architecture section 11: every delivery also carries the Standard Webhooks headers, so a receiver can verify it
 * with the `standardwebhooks` library as well as with Stripe's `constructEvent`, from the same
 * `whsec_` secret. Each check runs the libraries themselves on the bytes and headers received.
 */

let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(0);
});
afterAll(async () => {
  await receiver?.close();
});

async function deliveriesTo(hookPath: string, count: number): Promise<ReceivedRequest[]> {
  await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= count, 15_000);
  return requestsTo(receiver, hookPath);
}

function bodyOf(request: ReceivedRequest): any {
  return JSON.parse(request.rawBody.toString('utf8'));
}

/** The t of Svc-Signature (`t=<t>,v1=…`). */
function svcTimestamp(request: ReceivedRequest): string {
  return /^t=(\d+),/.exec(request.headers['svc-signature'])?.[1] ?? '';
}

function tampered(rawBody: Buffer): Buffer {
  const bytes = Buffer.from(rawBody);
  bytes[bytes.length - 2] ^= 1;
  return bytes;
}

/** Both libraries accept the delivery with `secret`, at the platform's time, and refuse it tampered or signed by another secret. */
async function expectVerifiedByBoth(request: ReceivedRequest, secret: string): Promise<void> {
  const now = Math.floor((await platformNow()).getTime() / 1000);
  const { rawBody, headers } = request;
  expect(headers['webhook-id']).toBe(bodyOf(request).id);
  expect(headers['webhook-id']).toBe(headers['svc-event-id']);
  expect(headers['webhook-timestamp']).toBe(svcTimestamp(request));
  expect(standardWebhooksAccepts(rawBody, headers, secret, now)).toBe(true);
  expect(stripeAccepts(rawBody, headers['svc-signature'], secret, now)).toBe(true);

  expect(standardWebhooksAccepts(tampered(rawBody), headers, secret, now)).toBe(false);
  expect(stripeAccepts(tampered(rawBody), headers['svc-signature'], secret, now)).toBe(false);
  const stranger = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
  expect(standardWebhooksAccepts(rawBody, headers, stranger, now)).toBe(false);
  expect(stripeAccepts(rawBody, headers['svc-signature'], stranger, now)).toBe(false);
}

describe('Standard Webhooks headers (e2e)', () => {
  it('webhook.test and message.status deliveries verify with standardwebhooks and with Stripe, from the endpoint secret', async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status']);

    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    const [testDelivery] = await deliveriesTo(hook.path, 1);
    expect(bodyOf(testDelivery)).toMatchObject({ id: test.eventId, type: 'webhook.test' });
    expect(testDelivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    await expectVerifiedByBoth(testDelivery, hook.secret);

    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'standard' }), 202).body;
    await receiver.waitFor(() => requestsTo(receiver, hook.path).some((r) => bodyOf(r).data.id === sent.id), 15_000);
    const statuses = requestsTo(receiver, hook.path).filter((r) => bodyOf(r).data.id === sent.id);
    for (const status of statuses) {
      expect(bodyOf(status).type).toBe('message.status');
      await expectVerifiedByBoth(status, hook.secret);
    }
  });

  it('a retry keeps webhook-id and is signed afresh with its own webhook-timestamp', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    let calls = 0;
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: ++calls === 1 ? 503 : 200 } : undefined));
    try {
      expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
      await deliveriesTo(hook.path, 1);
      await advanceClock(11);
      const [first, second] = await deliveriesTo(hook.path, 2);
      expect(second.headers['svc-delivery-attempt']).toBe('2');
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThan(Number(first.headers['webhook-timestamp']));
      expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
      await expectVerifiedByBoth(second, hook.secret);
    } finally {
      receiver.respond(() => undefined);
    }
  });

  it('during rotation both secrets sign, new first, and either alone verifies under both schemes', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    const rotated = expectStatus(await api('POST', `/webhooks/${hook.id}/rotate-secret`, app.sandboxKey), 200).body;

    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    const [delivery] = await deliveriesTo(hook.path, 1);
    const { headers, rawBody } = delivery;
    const signatures = headers['webhook-signature'].split(' ');
    expect(signatures).toHaveLength(2);
    // The library's own signing names which secret made each value.
    const at = new Date(Number(headers['webhook-timestamp']) * 1000);
    expect(signatures).toEqual([
      new Webhook(rotated.secret).sign(headers['webhook-id'], at, rawBody),
      new Webhook(hook.secret).sign(headers['webhook-id'], at, rawBody),
    ]);

    await expectVerifiedByBoth(delivery, rotated.secret);
    await expectVerifiedByBoth(delivery, hook.secret);
  });
});
