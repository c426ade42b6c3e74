import { Kafka, logLevel } from 'kafkajs';
import { API_VERSION } from '#platform/contracts';
import { Client } from 'pg';
import {
  admin,
  advanceClock,
  api,
  appWithTester,
  createTestApp,
  eventually,
  expectError,
  expectStatus,
  platformNow,
  registerWebhook,
  requestsTo,
  sendMessage,
  simAppAction,
  simSendText,
  startWebhookReceiver,
  TEST_WEBHOOK_HOSTS,
  unique,
  verifiedSecrets,
  type HttpsReceiver,
  type ReceivedRequest,
  type TestApp,
} from '#platform/testing';

const ALL_TYPES = ['message.received', 'message.status', 'consent.updated', 'app.status_changed'];

let receiver: HttpsReceiver;
let receiver2: HttpsReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(0);
  receiver2 = await startWebhookReceiver(1);
});
afterAll(async () => {
  await receiver?.close();
  await receiver2?.close();
});

/** Waits for `count` deliveries (POSTs) on a path and returns them with their parsed bodies. */
async function deliveriesTo(hookPath: string, count = 1, on: HttpsReceiver = receiver, timeoutMs = 15_000) {
  await on.waitFor(() => requestsTo(on, hookPath).length >= count, timeoutMs);
  return requestsTo(on, hookPath).map((r) => ({ request: r, body: JSON.parse(r.rawBody.toString('utf8')) }));
}

async function deliveryOf(hookPath: string, predicate: (body: any) => boolean, on: HttpsReceiver = receiver, timeoutMs = 15_000) {
  await on.waitFor(() => requestsTo(on, hookPath).some((r) => predicate(JSON.parse(r.rawBody.toString('utf8')))), timeoutMs);
  const request = requestsTo(on, hookPath).find((r) => predicate(JSON.parse(r.rawBody.toString('utf8')))) as ReceivedRequest;
  return { request, body: JSON.parse(request.rawBody.toString('utf8')) };
}

/** Reads webhooks.events from the start until an event matches (a mailer's view of D25). */
async function awaitWebhooksEvent(predicate: (event: any) => boolean, timeoutMs = 15_000): Promise<any> {
  const kafka = new Kafka({
    clientId: 'test-webhooks-events',
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    logLevel: logLevel.NOTHING,
  });
  const consumer = kafka.consumer({ groupId: unique('test-webhooks-events-') });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [`${process.env.KAFKA_NAMESPACE ?? ''}webhooks.events`], fromBeginning: true });
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no matching event on webhooks.events')), timeoutMs);
      void consumer.run({
        eachMessage: async ({ message }) => {
          const event = JSON.parse(message.value?.toString('utf8') ?? '{}');
          if (predicate(event)) {
            clearTimeout(timer);
            resolve(event);
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

async function deliveriesList(app: TestApp, query = ''): Promise<any> {
  return expectStatus(await api('GET', `/webhook-deliveries${query}`, app.sandboxKey), 200).body;
}

describe('webhook endpoints (e2e)', () => {
  it('POST /webhooks runs the handshake, answers 201 enabled with the secret once, and GET never shows it', async () => {
    const app = await createTestApp();
    const before = await platformNow();
    const hook = await registerWebhook(app, ['message.status', 'consent.updated']);
    expect(hook).toMatchObject({
      id: expect.stringMatching(/^we_[0-9A-Z]{26}$/),
      url: `https://${TEST_WEBHOOK_HOSTS[0]}${hook.path}`,
      events: ['message.status', 'consent.updated'],
      state: 'enabled',
      verifiedAt: expect.any(String),
      disabledAt: null,
      lastVerificationError: null,
      secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/),
    });
    expect(Date.parse(hook.createdAt as string)).toBeGreaterThanOrEqual(before.getTime());
    const [handshake] = requestsTo(receiver, hook.path, 'GET');
    expect(handshake.query.get('svc.mode')).toBe('subscribe');
    expect(handshake.query.get('svc.verify_token')).toBe(hook.verifyToken);
    expect(handshake.query.get('svc.challenge')).toMatch(/^\S{16,}$/);
    expect(handshake.headers.host).toBe(TEST_WEBHOOK_HOSTS[0]);

    const one = expectStatus(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 200).body;
    const { secret: _secret, path: _path, verifyToken: _token, ...record } = hook;
    expect(one).toEqual(record);
    expect(JSON.stringify(one)).not.toContain(hook.secret);
    expect(expectStatus(await api('GET', '/webhooks', app.sandboxKey), 200).body).toEqual({ data: [record] });
  });

  it('a failed handshake gives 201 pending_verification with the error; such an endpoint receives nothing and cannot test', async () => {
    const { app, appUserId } = await appWithTester();
    const hookPath = `/${unique('wrong-')}`;
    receiver.respond((req) => (req.path === hookPath && req.method === 'GET' ? { status: 200, body: 'not-the-challenge' } : undefined));
    const verifyToken = unique('token-');
    const created = expectStatus(
      await api('POST', '/webhooks', app.sandboxKey, { url: `https://${TEST_WEBHOOK_HOSTS[0]}${hookPath}`, verifyToken, events: ['message.status'] }),
      201,
    ).body;
    expect(created).toMatchObject({ state: 'pending_verification', verifiedAt: null, lastVerificationError: expect.stringContaining('challenge') });
    expectError(await api('POST', `/webhooks/${created.id}/test`, app.sandboxKey), 409, 'subscription_not_verified');

    // An enabled endpoint of the same app proves the event went out; the pending one stays silent.
    receiver.respond(() => undefined);
    const witness = await registerWebhook(app, ['message.status']);
    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'nobody listens' }), 202).body;
    await deliveryOf(witness.path, (b) => b.data.id === sent.id);
    expect(requestsTo(receiver, hookPath, 'POST')).toHaveLength(0);

    expectError(await api('POST', `/webhooks/${created.id}/verify`, app.sandboxKey, { verifyToken: 'wrong-token-1' }), 422, 'verify_token_mismatch');
    const verified = expectStatus(await api('POST', `/webhooks/${created.id}/verify`, app.sandboxKey, { verifyToken }), 200).body;
    expect(verified).toMatchObject({ state: 'enabled', lastVerificationError: null, verifiedAt: expect.any(String) });
  });

  it('refuses bad bodies with 400 and the failing fields', async () => {
    const app = await createTestApp();
    const url = `https://${TEST_WEBHOOK_HOSTS[0]}/x`;
    const bad = await api('POST', '/webhooks', app.sandboxKey, { url, verifyToken: 'short', events: ['message.sent', 'message.status'], extra: 1 });
    expectError(bad, 400, 'invalid_request');
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['events', 'extra', 'verifyToken']);
    expectError(await api('POST', '/webhooks', app.sandboxKey, { url, verifyToken: 'long-enough-token', events: [] }), 400, 'invalid_request');
    expectError(await api('POST', '/webhooks', app.sandboxKey, { url, verifyToken: 'tab\there-token', events: ['message.status'] }), 400, 'invalid_request');
    expectError(await api('POST', '/webhooks', app.sandboxKey, { verifyToken: 'long-enough-token', events: ['message.status'] }), 400, 'invalid_request');
  });

  it('needs the webhooks:manage scope on every webhook route', async () => {
    const app = await createTestApp({ scopes: ['messages:send'] });
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', '/webhooks/we_1'],
      ['PATCH', '/webhooks/we_1'],
      ['DELETE', '/webhooks/we_1'],
      ['POST', '/webhooks/we_1/verify'],
      ['POST', '/webhooks/we_1/test'],
      ['POST', '/webhooks/we_1/rotate-secret'],
      ['GET', '/webhook-deliveries'],
      ['POST', '/webhook-deliveries/wd_1/replay'],
    ]) {
      expectError(await api(method, path, app.sandboxKey, method === 'GET' || method === 'DELETE' ? undefined : {}), 403, 'insufficient_scope');
    }
  });

  it('allows 5 endpoints per app; the sixth gives 409 subscription_limit_reached', async () => {
    const app = await createTestApp();
    for (let i = 0; i < 5; i++) await registerWebhook(app, ['message.status']);
    const sixth = await api('POST', '/webhooks', app.sandboxKey, {
      url: `https://${TEST_WEBHOOK_HOSTS[0]}/sixth`,
      verifyToken: 'long-enough-token',
      events: ['message.status'],
    });
    expectError(sixth, 409, 'subscription_limit_reached');
    expect(requestsTo(receiver, '/sixth', 'GET')).toHaveLength(0);
  });

  it('PATCH changes events; a new url needs verifyToken and re-verifies against the new url', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    const patched = expectStatus(await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { events: ['consent.updated', 'message.received'] }), 200).body;
    expect(patched).toMatchObject({ events: ['consent.updated', 'message.received'], state: 'enabled' });

    const newUrl = `https://${TEST_WEBHOOK_HOSTS[1]}/${unique('moved-')}`;
    const missing = await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { url: newUrl });
    expectError(missing, 400, 'invalid_request');
    expect(missing.body.error.details).toEqual([{ field: 'verifyToken', issue: expect.any(String) }]);

    const moved = expectStatus(await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { url: newUrl, verifyToken: 'a-brand-new-token' }), 200).body;
    expect(moved).toMatchObject({ url: newUrl, state: 'enabled' });
    const [handshake] = requestsTo(receiver2, new URL(newUrl).pathname, 'GET');
    expect(handshake.query.get('svc.verify_token')).toBe('a-brand-new-token');
    expectError(
      await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { url: 'http://hooks.local.test/x', verifyToken: 'a-brand-new-token' }),
      422,
      'webhook_url_https_required',
    );

    // verifyToken alone is stored for later handshakes.
    expectStatus(await api('PATCH', `/webhooks/${hook.id}`, app.sandboxKey, { verifyToken: 'only-the-token-changed' }), 200);
    expectError(await api('POST', `/webhooks/${hook.id}/verify`, app.sandboxKey, { verifyToken: 'a-brand-new-token' }), 422, 'verify_token_mismatch');
    expect(expectStatus(await api('POST', `/webhooks/${hook.id}/verify`, app.sandboxKey, { verifyToken: 'only-the-token-changed' }), 200).body.state).toBe(
      'enabled',
    );
  });

  it('DELETE answers 204, then the endpoint is gone; another app sees 404 everywhere', async () => {
    const app = await createTestApp();
    const other = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    expectError(await api('GET', `/webhooks/${hook.id}`, other.sandboxKey), 404, 'not_found');
    expectError(await api('PATCH', `/webhooks/${hook.id}`, other.sandboxKey, { events: ['message.status'] }), 404, 'not_found');
    expectError(await api('DELETE', `/webhooks/${hook.id}`, other.sandboxKey), 404, 'not_found');
    expectError(await api('POST', `/webhooks/${hook.id}/rotate-secret`, other.sandboxKey), 404, 'not_found');
    expectError(await api('POST', `/webhooks/${hook.id}/test`, other.sandboxKey), 404, 'not_found');
    expect(expectStatus(await api('GET', '/webhooks', other.sandboxKey), 200).body).toEqual({ data: [] });

    const deleted = await api('DELETE', `/webhooks/${hook.id}`, app.sandboxKey);
    expect(deleted.status).toBe(204);
    expectError(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 404, 'not_found');
    expectError(await api('GET', `/webhooks/${'x'.repeat(65)}`, app.sandboxKey), 400, 'invalid_request');
  });

  it('a handshake answered with a redirect is not followed', async () => {
    const app = await createTestApp();
    const hookPath = `/${unique('redirect-')}`;
    receiver.respond((req) => (req.path === hookPath ? { status: 302, headers: { location: `https://${TEST_WEBHOOK_HOSTS[0]}/elsewhere` } } : undefined));
    const created = expectStatus(
      await api('POST', '/webhooks', app.sandboxKey, {
        url: `https://${TEST_WEBHOOK_HOSTS[0]}${hookPath}`,
        verifyToken: 'long-enough-token',
        events: ['message.status'],
      }),
      201,
    ).body;
    receiver.respond(() => undefined);
    expect(created.state).toBe('pending_verification');
    expect(requestsTo(receiver, '/elsewhere', 'GET')).toHaveLength(0);
  });
});

describe('webhook deliveries (e2e)', () => {
  it('a sent message is delivered as a signed message.status event with every header', async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status']);
    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'hello', clientReference: 'order-1' }), 202).body;
    const { request, body } = await deliveryOf(hook.path, (b) => b.data.id === sent.id && b.data.status === 'sent');

    expect(Object.keys(body)).toEqual(['id', 'type', 'apiVersion', 'created', 'appId', 'data']);
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      type: 'message.status',
      apiVersion: API_VERSION,
      created: expect.any(Number),
      appId: app.appId,
      data: { id: sent.id, appUserId, status: 'sent', timestamp: expect.any(String), clientReference: 'order-1' },
    });
    expect(request.headers['content-type']).toContain('application/json');
    expect(request.headers['svc-event-id']).toBe(body.id);
    expect(request.headers['svc-event-type']).toBe('message.status');
    expect(request.headers['svc-delivery-id']).toMatch(/^wd_[0-9A-Z]{26}$/);
    expect(request.headers['svc-delivery-attempt']).toBe('1');
    expect(request.headers['svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const check = verifiedSecrets(request.headers['svc-signature'], request.rawBody, [hook.secret]);
    expect(check.matched).toEqual([hook.secret]);
    // t is the platform clock at the attempt (it moves with the test clock).
    expect(Math.abs(check.t * 1000 - (await platformNow()).getTime())).toBeLessThan(60_000);

    const listed = await eventually(async () => {
      const page = await deliveriesList(app);
      return page.data.find((d: any) => d.eventId === body.id && d.status === 'delivered');
    });
    expect(listed).toEqual({
      id: request.headers['svc-delivery-id'],
      eventId: body.id,
      eventType: 'message.status',
      subscriptionId: hook.id,
      status: 'delivered',
      attempts: 1,
      lastAttemptAt: expect.any(String),
      nextAttemptAt: null,
      lastResponseStatus: 200,
      lastError: null,
      createdAt: expect.any(String),
      deliveredAt: expect.any(String),
      failedAt: null,
    });
  });

  it('delivers consent.updated, app.status_changed and message.received, each only to endpoints that subscribed', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const all = await registerWebhook(app, ALL_TYPES);
    const consentOnly = await registerWebhook(app, ['consent.updated'], { hostIndex: 1 });

    const inbound = await simSendText(userId, app.appId, 'hi business');
    const received = await deliveryOf(all.path, (b) => b.type === 'message.received');
    expect(received.body.data).toEqual({ id: inbound.id, from: appUserId, type: 'text', text: 'hi business', media: [], timestamp: expect.any(String) });

    expectStatus(await simAppAction(userId, app.appId, 'stop'), 200);
    const stopped = await deliveryOf(all.path, (b) => b.type === 'consent.updated' && b.data.status === 'opted_out');
    expect(stopped.body.data).toEqual({ appUserId, status: 'opted_out' });
    const sameEvent = await deliveryOf(consentOnly.path, (b) => b.id === stopped.body.id, receiver2);
    expect(sameEvent.request.rawBody.equals(stopped.request.rawBody)).toBe(true);
    expect(sameEvent.request.headers['svc-delivery-id']).not.toBe(stopped.request.headers['svc-delivery-id']);

    expectStatus(await admin('POST', `/apps/${app.appId}/status`, { action: 'approve' }), 200);
    const approved = await deliveryOf(all.path, (b) => b.type === 'app.status_changed');
    expect(approved.body.data).toEqual({ status: 'internal_live', previousStatus: 'sandbox' });

    // The consent-only endpoint got consent events and nothing else.
    expect(requestsTo(receiver2, consentOnly.path).every((r) => JSON.parse(r.rawBody.toString()).type === 'consent.updated')).toBe(true);
  });

  it('delivers an event no endpoint subscribed to nowhere, and keeps it for the events API', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const statusOnly = await registerWebhook(app, ['message.status']);
    const inbound = await simSendText(userId, app.appId, 'nobody listens for this');
    // One user's messages share a partition: once the send's status arrives, the earlier message.received was handled.
    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'after it' }), 202).body;
    await deliveryOf(statusOnly.path, (b) => b.type === 'message.status' && b.data.id === sent.id);

    expect(requestsTo(receiver, statusOnly.path).every((r) => JSON.parse(r.rawBody.toString()).type === 'message.status')).toBe(true);
    const listed = expectStatus(await api('GET', '/events?type=message.received', app.sandboxKey), 200).body.data;
    expect(listed.map((e: { data: { id: string } }) => e.data.id)).toEqual([inbound.id]);
  });

  it('message.received with a file arrives once media has registered it: GET /media works when the webhook lands', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.received']);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAAAASUVORK5CYII=', 'base64');
    let mediaAtArrival: number | null = null;
    receiver.respond(async (req) => {
      if (req.path !== hook.path || req.method !== 'POST') return undefined;
      const body = JSON.parse(req.rawBody.toString('utf8'));
      mediaAtArrival = (await api('GET', `/media/${body.data.media[0].id}`, app.sandboxKey)).status;
      return { status: 200 };
    });
    const inbound = expectStatus(
      await admin('POST', `/sim/users/${userId}/messages`, {
        appId: app.appId,
        type: 'image',
        text: 'a photo',
        media: [{ fileName: 'dot.png', mimeType: 'image/png', base64: png.toString('base64') }],
      }),
      201,
    ).body;
    const { body } = await deliveryOf(hook.path, (b) => b.data.id === inbound.id);
    await eventually(async () => mediaAtArrival !== null);
    receiver.respond(() => undefined);
    expect(body.data).toEqual({
      id: inbound.id,
      from: appUserId,
      type: 'image',
      text: 'a photo',
      media: [{ id: expect.stringMatching(/^med_/), mimeType: 'image/png', fileName: 'dot.png', size: png.length }],
      timestamp: expect.any(String),
    });
    expect(mediaAtArrival).toBe(200);
  });

  it('POST …/test delivers a signed webhook.test to that endpoint only', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    const other = await registerWebhook(app, ['message.status']);
    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    expect(test).toEqual({ deliveryId: expect.stringMatching(/^wd_/), eventId: expect.stringMatching(/^evt_/) });
    const [{ request, body }] = await deliveriesTo(hook.path);
    expect(body).toMatchObject({
      id: test.eventId,
      type: 'webhook.test',
      appId: app.appId,
      data: { message: expect.any(String), subscriptionId: hook.id, nonce: expect.any(String) },
    });
    expect(request.headers['svc-delivery-id']).toBe(test.deliveryId);
    expect(verifiedSecrets(request.headers['svc-signature'], request.rawBody, [hook.secret]).matched).toHaveLength(1);
    expect(requestsTo(receiver, other.path)).toHaveLength(0);
  });

  it('retries a 503 about 10 s later (test clock) with the same ids, a new attempt number and a fresh signature', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    let calls = 0;
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: ++calls === 1 ? 503 : 200 } : undefined));
    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    await deliveriesTo(hook.path, 1);
    const pending = await eventually(async () =>
      (await deliveriesList(app)).data.find((d: any) => d.id === test.deliveryId && d.attempts === 1 && d.lastResponseStatus === 503),
    );
    expect(pending).toMatchObject({ status: 'pending', lastError: 'answered 503', deliveredAt: null });
    expect(Date.parse(pending.nextAttemptAt) - Date.parse(pending.lastAttemptAt)).toBeGreaterThanOrEqual(9_000);
    expect(Date.parse(pending.nextAttemptAt) - Date.parse(pending.lastAttemptAt)).toBeLessThanOrEqual(11_000);

    await advanceClock(11);
    const [first, second] = await deliveriesTo(hook.path, 2);
    receiver.respond(() => undefined);
    expect(second.request.headers['svc-delivery-attempt']).toBe('2');
    expect(second.request.headers['svc-delivery-id']).toBe(first.request.headers['svc-delivery-id']);
    expect(second.request.headers['svc-event-id']).toBe(first.request.headers['svc-event-id']);
    expect(second.request.rawBody.equals(first.request.rawBody)).toBe(true);
    expect(verifiedSecrets(second.request.headers['svc-signature'], second.request.rawBody, [hook.secret]).t).toBeGreaterThan(
      verifiedSecrets(first.request.headers['svc-signature'], first.request.rawBody, [hook.secret]).t,
    );
    await eventually(async () => (await deliveriesList(app, '?status=delivered')).data.some((d: any) => d.id === test.deliveryId && d.attempts === 2));
  });

  it('a 4xx other than 408/429 fails the delivery at once', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 410 } : undefined));
    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    const failed = await eventually(async () => (await deliveriesList(app, '?status=failed')).data.find((d: any) => d.id === test.deliveryId));
    receiver.respond(() => undefined);
    expect(failed).toMatchObject({ attempts: 1, lastResponseStatus: 410, lastError: 'answered 410', failedAt: expect.any(String), nextAttemptAt: null });
  });

  it('keeps retrying for 24 hours, then marks the delivery failed', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 500 } : undefined));
    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    await deliveriesTo(hook.path, 1);
    await advanceClock(3 * 3600);
    await eventually(async () => (await deliveriesList(app)).data.some((d: any) => d.id === test.deliveryId && d.attempts >= 2 && d.status === 'pending'));
    await advanceClock(21 * 3600 + 60);
    const failed = await eventually(async () => (await deliveriesList(app, '?status=failed')).data.find((d: any) => d.id === test.deliveryId));
    receiver.respond(() => undefined);
    expect(failed).toMatchObject({ lastResponseStatus: 500, lastError: 'answered 500' });
    expect(Date.parse(failed.failedAt) - Date.parse(failed.createdAt)).toBeGreaterThanOrEqual(24 * 3600 * 1000);
  });

  it('an endpoint failing for 3 days is disabled (and announced on webhooks.events); verify re-enables it', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 500 } : undefined));
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    await deliveriesTo(hook.path, 1);
    // The jump makes the retry due; it fails 3 days after the first failure, which disables the endpoint.
    await advanceClock(3 * 24 * 3600 + 60);
    const disabled = await eventually(async () => {
      const endpoint = expectStatus(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 200).body;
      return endpoint.state === 'disabled' ? endpoint : null;
    });
    expect(disabled.disabledAt).toEqual(expect.any(String));
    const announced = await awaitWebhooksEvent((e) => e.type === 'WebhookEndpointDisabled' && e.data.endpointId === hook.id);
    expect(announced).toMatchObject({
      appId: app.appId,
      data: { endpointId: hook.id, url: hook.url, failingSince: expect.any(String), reason: expect.any(String) },
    });
    expectError(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 409, 'subscription_not_verified');

    receiver.respond(() => undefined);
    const enabled = expectStatus(await api('POST', `/webhooks/${hook.id}/verify`, app.sandboxKey, { verifyToken: hook.verifyToken }), 200).body;
    expect(enabled).toMatchObject({ state: 'enabled', disabledAt: null });
  });

  it('a success ends a failing streak: failing again 3 days after the first failure does not disable the endpoint', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    let status = 500;
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status } : undefined));
    const failed = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    await eventually(async () => (await deliveriesList(app)).data.some((d: any) => d.id === failed.deliveryId && d.lastResponseStatus === 500));
    status = 200;
    await advanceClock(11);
    await eventually(async () => (await deliveriesList(app, '?status=delivered')).data.some((d: any) => d.id === failed.deliveryId));

    status = 500;
    await advanceClock(3 * 24 * 3600);
    const again = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    await eventually(async () => (await deliveriesList(app)).data.some((d: any) => d.id === again.deliveryId && d.lastResponseStatus === 500));
    receiver.respond(() => undefined);
    expect(expectStatus(await api('GET', `/webhooks/${hook.id}`, app.sandboxKey), 200).body).toMatchObject({ state: 'enabled', disabledAt: null });
  });

  it('rotate-secret: both secrets sign for 24 hours, then only the new one', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    const now = await platformNow();
    const rotated = expectStatus(await api('POST', `/webhooks/${hook.id}/rotate-secret`, app.sandboxKey), 200).body;
    expect(rotated).toEqual({ secret: expect.stringMatching(/^whsec_[0-9A-Za-z]{32}$/), previousSecretExpiresAt: expect.any(String) });
    expect(rotated.secret).not.toBe(hook.secret);
    expect(Math.abs(Date.parse(rotated.previousSecretExpiresAt) - now.getTime() - 24 * 3600 * 1000)).toBeLessThan(60_000);

    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    const [during] = await deliveriesTo(hook.path, 1);
    const both = verifiedSecrets(during.request.headers['svc-signature'], during.request.rawBody, [rotated.secret, hook.secret]);
    expect(both.v1Count).toBe(2);
    expect(both.matched).toEqual([rotated.secret, hook.secret]);

    await advanceClock(24 * 3600 + 60);
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    const [, after] = await deliveriesTo(hook.path, 2);
    const onlyNew = verifiedSecrets(after.request.headers['svc-signature'], after.request.rawBody, [rotated.secret, hook.secret]);
    expect(onlyNew).toMatchObject({ v1Count: 1, matched: [rotated.secret] });
  });

  it('replay: a new delivery with the same event id and bytes; 409 while pending; 409 payload_expired after 7 days', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status']);
    const test = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    const [original] = await deliveriesTo(hook.path, 1);
    await eventually(async () => (await deliveriesList(app, '?status=delivered')).data.some((d: any) => d.id === test.deliveryId));

    const replay = expectStatus(await api('POST', `/webhook-deliveries/${test.deliveryId}/replay`, app.sandboxKey), 202).body;
    expect(replay).toMatchObject({
      id: expect.stringMatching(/^wd_/),
      eventId: test.eventId,
      eventType: 'webhook.test',
      subscriptionId: hook.id,
      deliveredAt: null,
      failedAt: null,
    });
    expect(replay.id).not.toBe(test.deliveryId);
    const [, again] = await deliveriesTo(hook.path, 2);
    expect(again.request.headers['svc-event-id']).toBe(test.eventId);
    expect(again.request.headers['svc-delivery-id']).toBe(replay.id);
    expect(again.request.rawBody.equals(original.request.rawBody)).toBe(true);

    // A delivery still pending cannot be replayed.
    receiver.respond((req) => (req.path === hook.path && req.method === 'POST' ? { status: 503 } : undefined));
    const stuck = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202).body;
    await eventually(async () => (await deliveriesList(app)).data.some((d: any) => d.id === stuck.deliveryId && d.attempts === 1));
    expectError(await api('POST', `/webhook-deliveries/${stuck.deliveryId}/replay`, app.sandboxKey), 409, 'delivery_in_progress');
    receiver.respond(() => undefined);

    expectError(await api('POST', `/webhook-deliveries/${test.deliveryId}/replay`, (await createTestApp()).sandboxKey), 404, 'not_found');
    await advanceClock(7 * 24 * 3600 + 60);
    expectError(await api('POST', `/webhook-deliveries/${test.deliveryId}/replay`, app.sandboxKey), 409, 'payload_expired');
  });

  it('GET /webhook-deliveries filters by status and subscription, pages newest first, and refuses bad parameters', async () => {
    const app = await createTestApp();
    const a = await registerWebhook(app, ['message.status']);
    const b = await registerWebhook(app, ['message.status']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(expectStatus(await api('POST', `/webhooks/${a.id}/test`, app.sandboxKey), 202).body.deliveryId);
    const onB = expectStatus(await api('POST', `/webhooks/${b.id}/test`, app.sandboxKey), 202).body.deliveryId;
    await eventually(async () => (await deliveriesList(app, '?status=delivered&limit=100')).data.length === 4);

    const first = await deliveriesList(app, `?subscriptionId=${a.id}&limit=2`);
    expect(first.data.map((d: any) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await deliveriesList(app, `?subscriptionId=${a.id}&limit=2&cursor=${first.nextCursor}`);
    expect(second).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect((await deliveriesList(app, `?subscriptionId=${b.id}`)).data.map((d: any) => d.id)).toEqual([onB]);
    expect((await deliveriesList(app, '?status=failed')).data).toEqual([]);
    expect((await deliveriesList(await createTestApp())).data).toEqual([]);

    const bad = await api('GET', '/webhook-deliveries?status=done&limit=0&cursor=%25%25', app.sandboxKey);
    expectError(bad, 400, 'invalid_request');
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['cursor', 'limit', 'status']);
  });
});

describe('webhook delivery worker and its due index (e2e)', () => {
  /**
   * How many entries of `deliveries_due_idx` a bitmap scan returns for next_attempt_at in [from, to].
   * The session allows bitmap scans only: a bitmap scan skips index entries already marked dead, and
   * never marks any itself, so the count shows what the worker's own scans have left behind.
   */
  async function dueIndexEntries(db: Client, from: Date, to: Date): Promise<number> {
    const { rows } = await db.query(
      `explain (analyze, format json) select delivery_id from webhook_dispatcher.deliveries where status = 'pending' and next_attempt_at between $1 and $2`,
      [from, to],
    );
    const find = (node: any): any => (node['Node Type'] === 'Bitmap Index Scan' ? node : (node.Plans ?? []).map(find).find(Boolean));
    const scan = find(rows[0]['QUERY PLAN'][0].Plan);
    if (!scan) throw new Error('the plan has no bitmap index scan');
    return scan['Actual Rows'];
  }

  it('finished deliveries leave no dead entries in the due index for every later claim to visit', async () => {
    const db = new Client({ connectionString: process.env.DATABASE_URL, options: '-c enable_indexscan=off -c enable_seqscan=off' });
    await db.connect();
    try {
      const appId = unique('app_');
      // Due long ago, in a day of their own: the worker's claim walks the index from the oldest entry, and the count sees only these.
      const from = new Date(Date.UTC(2000, 0, 1) + Math.floor(Math.random() * 3000) * 86_400_000);
      const to = new Date(from.getTime() + 86_400_000);
      await db.query('begin');
      // 3 000 deliveries that went from pending to delivered, as the worker's records do; committed together, so the worker never sees one pending.
      await db.query(
        `insert into webhook_dispatcher.deliveries (delivery_id, app_id, endpoint_id, event_id, event_type, status, attempts, created_at, next_attempt_at)
         select $1 || '_wd_' || i, $1, $1 || '_we', $1 || '_evt_' || i, 'message.status', 'pending', 0, now(), $2::timestamptz + i * interval '1 ms'
           from generate_series(1, 3000) as i`,
        [appId, from],
      );
      await db.query(
        `update webhook_dispatcher.deliveries set status = 'delivered', attempts = 1, next_attempt_at = null, delivered_at = now() where app_id = $1`,
        [appId],
      );
      expect(await dueIndexEntries(db, from, to)).toBe(3000);
      await db.query('commit');

      // The worker claims at least once a second; its scan of the due index marks the dead entries it passes.
      await eventually(async () => (await dueIndexEntries(db, from, to)) === 0, 20_000, 200);
    } finally {
      await db.end();
    }
  });
});
