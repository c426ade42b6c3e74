import {
  addTester,
  appWithTester,
  createTestApp,
  eventually,
  platformNow,
  publicUrl,
  requestsTo,
  simAppAction,
  startWebhookReceiver,
  TEST_WEBHOOK_HOSTS,
  unique,
  type HttpsReceiver,
  type ReceivedRequest,
  type TestApp,
} from '#platform/testing';
import {
  answerHandshake,
  PlatformClient,
  PlatformError,
  verifyWebhook,
  WebhookVerificationError,
  type CreateWebhookEndpointRequest,
  type FetchLike,
  type WebhookEvent,
} from '#platform/sdk';

/** The SDK against the running stack: every call goes through the real gateway and services. */

/** A real 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(0);
});
afterAll(async () => {
  await receiver?.close();
});

/** A client for the app, on the global fetch; `urls` lists every request it made. */
function clientFor(app: TestApp): { client: PlatformClient; urls: string[] } {
  const urls: string[] = [];
  const countingFetch: FetchLike = (url, init) => {
    urls.push(`${init.method} ${url}`);
    return fetch(url, init as RequestInit);
  };
  return { client: new PlatformClient({ apiKey: app.sandboxKey, baseUrl: publicUrl(), fetch: countingFetch }), urls };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Registers an endpoint on a fresh path of the receiver, answering the handshake with answerHandshake. */
async function createEndpoint(client: PlatformClient, events: CreateWebhookEndpointRequest['events']) {
  const hookPath = `/${unique('sdk-hook-')}`;
  const verifyToken = unique('sdk-token-');
  const handshakes: ReturnType<typeof answerHandshake>[] = [];
  receiverHandlers.set(hookPath, (req) => {
    if (req.method !== 'GET') return undefined;
    const answer = answerHandshake(req.url, verifyToken);
    handshakes.push(answer);
    return { status: answer.status, body: answer.body };
  });
  const endpoint = await client.webhooks.create({ url: `https://${TEST_WEBHOOK_HOSTS[0]}${hookPath}`, verifyToken, events });
  return { endpoint, hookPath, verifyToken, handshakes };
}

/** Per-path handlers on the shared receiver. */
const receiverHandlers = new Map<string, (req: ReceivedRequest) => { status: number; body?: string } | undefined>();
beforeAll(() => receiver.respond((req) => receiverHandlers.get(req.path)?.(req)));

async function deliveriesTo(hookPath: string, count: number): Promise<ReceivedRequest[]> {
  await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= count, 15_000);
  return requestsTo(receiver, hookPath);
}

/** The receiver's clock is the platform's (the test clock), as a real receiver's would be the real one. */
async function verifyNow(request: ReceivedRequest, secrets: string | string[], headers: Record<string, string> = request.headers): Promise<WebhookEvent> {
  return verifyWebhook(request.rawBody, headers, secrets, { now: await platformNow() });
}

describe('@platform/sdk against the running stack (e2e)', () => {
  it('ping checks the key and carries the request id', async () => {
    const app = await createTestApp();
    const { client } = clientFor(app);
    const pong = await client.ping();
    expect(pong).toMatchObject({ ok: true, appId: app.appId, environment: 'sandbox', apiVersion: '2026-10-01' });
    expect(pong.lastResponse.requestId).toBe(pong.requestId);
    const bad = (await caught(new PlatformClient({ apiKey: 'qk_sb_00000000000000000000000000000000', baseUrl: publicUrl() }).ping())) as PlatformError;
    expect(bad).toBeInstanceOf(PlatformError);
    expect(bad).toMatchObject({ status: 401, code: 'invalid_api_key', type: 'authentication_error' });
  });

  it('sends a message and gets it back; a repeated idempotency key replays the first answer', async () => {
    const { app, appUserId } = await appWithTester();
    const { client } = clientFor(app);
    const sent = await client.messages.send({ to: { appUserId }, type: 'text', text: 'hello from the SDK', clientReference: 'sdk-1' });
    expect(sent).toMatchObject({ status: 'accepted', appUserId, type: 'text', clientReference: 'sdk-1' });
    expect(sent.lastResponse).toMatchObject({ status: 202, idempotentReplayed: false });
    const message = await client.messages.get(sent.id);
    expect(message).toMatchObject({ id: sent.id, direction: 'outbound', appUserId, text: 'hello from the SDK' });

    const key = unique('sdk-idem-');
    const first = await client.messages.send({ to: { appUserId }, type: 'text', text: 'once' }, { idempotencyKey: key });
    const again = await client.messages.send({ to: { appUserId }, type: 'text', text: 'once' }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(again.lastResponse.idempotentReplayed).toBe(true);
  });

  it('throws PlatformError with the code to branch on: recipient_not_found, consent_required, invalid_request', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const { client } = clientFor(app);
    const unknown = (await caught(client.messages.send({ to: { appUserId: 'u_0000000000000000000000' }, type: 'text', text: 'hi' }))) as PlatformError;
    expect(unknown).toMatchObject({ status: 404, code: 'recipient_not_found', type: 'not_found_error', requestId: expect.stringMatching(/^req_/) });
    expect(unknown.headers['svc-request-id']).toBe(unknown.requestId);

    await simAppAction(userId, app.appId, 'stop');
    const error = await caught(client.messages.send({ to: { appUserId }, type: 'text', text: 'hi' }));
    let branch = 'other';
    if (error instanceof PlatformError && error.code === 'consent_required') branch = `${error.status} ${error.type}`;
    expect(branch).toBe('403 permission_error');

    const invalid = (await caught(client.messages.send({ to: { appUserId }, type: 'text', text: 'x'.repeat(5000) }))) as PlatformError;
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', details: [expect.objectContaining({ field: 'text' })] });
  });

  it('iterates consents across pages with for await, and still gives one page when awaited', async () => {
    const app = await createTestApp();
    const testers = [];
    for (let i = 0; i < 5; i++) testers.push(await addTester(app));
    const { client, urls } = clientFor(app);

    const page = await client.consents.list({ status: 'opted_in', limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.nextCursor).toEqual(expect.any(String));

    urls.length = 0;
    const seen: string[] = [];
    for await (const consent of client.consents.list({ status: 'opted_in', limit: 2 })) {
      expect(consent.status).toBe('opted_in');
      seen.push(consent.appUserId);
    }
    expect(seen.sort()).toEqual(testers.map((t) => t.appUserId).sort());
    expect(urls).toHaveLength(3);
    expect(urls.slice(1).every((url) => url.includes('cursor='))).toBe(true);

    const user = await client.users.get(testers[0].appUserId);
    expect(user).toMatchObject({ appUserId: testers[0].appUserId, consent: { status: 'opted_in' }, window: { open: false } });
  });

  it('uploads a PNG in one call (POST, PUT with the instruction’s headers, GET) and sends it', async () => {
    const { app, appUserId } = await appWithTester();
    const { client, urls } = clientFor(app);
    const media = await client.media.upload(PNG, { fileName: 'pixel.png', mimeType: 'image/png' });
    expect(media).toMatchObject({
      source: 'app',
      kind: 'image',
      mimeType: 'image/png',
      fileName: 'pixel.png',
      size: PNG.length,
      status: 'ready',
      url: expect.any(String),
    });
    expect(urls.map((u) => u.split(' ')[0])).toEqual(['POST', 'PUT', 'GET']);
    const again = await client.media.get(media.id);
    expect(Buffer.from(await (await fetch(again.url as string)).arrayBuffer())).toEqual(PNG);
    const sent = await client.messages.send({ to: { appUserId }, type: 'image', mediaId: media.id });
    expect(sent.type).toBe('image');
  });

  it('reads and updates the business profile and creates an opt-in link', async () => {
    const app = await createTestApp();
    const { client } = clientFor(app);
    const profile = await client.businessProfile.get();
    expect(profile.appId).toBe(app.appId);
    const updated = await client.businessProfile.update({ about: 'Made with the SDK', websiteUrl: 'https://shop.example.com/about' });
    expect(updated).toMatchObject({ about: 'Made with the SDK', domain: 'shop.example.com' });
    const link = await client.optInLinks.create({ ref: 'sdk-campaign', expiresInDays: 7 });
    expect(link).toMatchObject({ ref: 'sdk-campaign', token: expect.any(String), url: expect.any(String) });
  });

  it('registers a receiver that answers the handshake with answerHandshake, and verifies real deliveries with verifyWebhook', async () => {
    const { app, appUserId } = await appWithTester();
    const { client } = clientFor(app);
    const { endpoint, hookPath, verifyToken, handshakes } = await createEndpoint(client, ['message.status']);
    expect(endpoint).toMatchObject({ state: 'enabled', secret: expect.stringMatching(/^whsec_/) });
    expect(handshakes).toEqual([{ ok: true, status: 200, body: expect.any(String) }]);

    // A real message.status delivery, checked on the raw bytes and headers the receiver got.
    const sent = await client.messages.send({ to: { appUserId }, type: 'text', text: 'status please' });
    const [delivery] = await deliveriesTo(hookPath, 1);
    const event = await verifyNow(delivery, endpoint.secret);
    expect(event.type).toBe('message.status');
    if (event.type === 'message.status') expect(event.data).toMatchObject({ id: sent.id, appUserId });
    expect(event.id).toBe(delivery.headers['svc-event-id']);

    // The same delivery through its Standard Webhooks headers alone.
    const { 'svc-signature': _svc, ...standardOnly } = delivery.headers;
    expect(standardOnly['webhook-signature']).toBeDefined();
    expect(await verifyNow(delivery, endpoint.secret, standardOnly)).toEqual(event);

    // Tampered bytes or another secret are refused.
    const tampered = Buffer.from(delivery.rawBody);
    tampered[tampered.length - 2] ^= 1;
    expect(() => verifyWebhook(tampered, delivery.headers, endpoint.secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(delivery.rawBody, delivery.headers, 'whsec_' + 'A'.repeat(32))).toThrow(WebhookVerificationError);

    // Lifecycle calls through the SDK.
    expect((await client.webhooks.list()).data.map((e) => e.id)).toEqual([endpoint.id]);
    expect(await client.webhooks.get(endpoint.id)).not.toHaveProperty('secret');
    expect(await client.webhooks.update(endpoint.id, { events: ['message.status', 'webhook.test'] })).toMatchObject({
      events: ['message.status', 'webhook.test'],
    });
    expect(await client.webhooks.verify(endpoint.id, { verifyToken })).toMatchObject({ state: 'enabled' });
    expect(handshakes).toHaveLength(2);
  });

  it('after rotateSecret, test deliveries carry two v1 values and verify with either secret; deliveries page and replay', async () => {
    const app = await createTestApp();
    const { client } = clientFor(app);
    const { endpoint, hookPath } = await createEndpoint(client, ['message.status']);
    const accepted = await client.webhooks.test(endpoint.id);
    const [first] = await deliveriesTo(hookPath, 1);
    expect((await verifyNow(first, endpoint.secret)).id).toBe(accepted.eventId);

    const rotated = await client.webhooks.rotateSecret(endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const second = await client.webhooks.test(endpoint.id);
    const deliveries = await deliveriesTo(hookPath, 2);
    const afterRotation = deliveries[1];
    expect(afterRotation.headers['svc-signature'].match(/v1=/g)).toHaveLength(2);
    for (const secrets of [endpoint.secret, rotated.secret, [endpoint.secret, rotated.secret]]) {
      const event = await verifyNow(afterRotation, secrets);
      expect(event).toMatchObject({ id: second.eventId, type: 'webhook.test', data: { subscriptionId: endpoint.id } });
    }

    // Both deliveries, one per page, once each has been answered.
    const all = await eventually(async () => {
      const list: { id: string; status: string }[] = [];
      for await (const d of client.webhookDeliveries.list({ subscriptionId: endpoint.id, limit: 1 })) list.push(d);
      return list.length === 2 && list.every((d) => d.status === 'delivered') ? list : null;
    });
    expect(all.map((d) => d.id).sort()).toEqual([accepted.deliveryId, second.deliveryId].sort());

    const replay = await client.webhookDeliveries.replay(accepted.deliveryId);
    expect(replay.id).not.toBe(accepted.deliveryId);
    const replayed = (await deliveriesTo(hookPath, 3))[2];
    expect((await verifyNow(replayed, rotated.secret)).id).toBe(accepted.eventId);

    await client.webhooks.delete(endpoint.id);
    expect(await caught(client.webhooks.get(endpoint.id))).toMatchObject({ status: 404, code: 'not_found' });
  });
});
