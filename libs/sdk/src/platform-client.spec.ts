import { errorReply, fakeFetch, fetchFailed, type FakeReply } from './fake-fetch.test-helpers';
import { PlatformClient, type PlatformClientOptions } from './platform-client';
import { PlatformConnectionError, PlatformError } from './platform-error';
import { API_VERSION, SDK_VERSION } from './request-sender';
import sdkPackage from '../package.json';

const BASE = 'https://api.example.test/platform/v1';
const APP_USER = 'u_0123456789abcdefghijkl';
const ACCEPTED = { id: 'msg_1', status: 'accepted', appUserId: APP_USER, type: 'text', createdAt: '2026-10-01T00:00:00.000Z', clientReference: null };
const TEXT = { to: { appUserId: APP_USER }, type: 'text' as const, text: 'hi' };

/** A client on a scripted fetch whose sleeps are recorded instead of waited. */
function clientWith(script: Array<FakeReply | ((call: any) => FakeReply)>, options: Partial<PlatformClientOptions> = {}) {
  const { fetch, calls } = fakeFetch(script);
  const sleeps: number[] = [];
  const client = new PlatformClient({ apiKey: 'qk_sb_test', baseUrl: BASE, fetch, sleep: async (ms) => void sleeps.push(ms), ...options });
  return { client, calls, sleeps };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('PlatformClient requests', () => {
  it('sends the key, the API version and JSON to the base URL', async () => {
    const { client, calls } = clientWith([
      { status: 200, json: { ok: true } },
      { status: 200, json: { ok: true } },
    ]);
    await client.ping();
    await client.businessProfile.update({ about: null });
    expect(calls[0]).toMatchObject({ url: `${BASE}/ping`, method: 'GET', body: undefined });
    expect(calls[0].headers).toMatchObject({
      authorization: 'Bearer qk_sb_test',
      accept: 'application/json',
      'svc-version': API_VERSION,
      'user-agent': expect.stringContaining(`platform-sdk-node/${SDK_VERSION}`),
    });
    expect(calls[0].headers['content-type']).toBeUndefined();
    expect(calls[1]).toMatchObject({ url: `${BASE}/business-profile`, method: 'PATCH', body: '{"about":null}' });
    expect(calls[1].headers['content-type']).toBe('application/json');
  });

  it('defaults to the local API and strips a trailing slash from baseUrl', async () => {
    const local = fakeFetch([{ status: 200, json: {} }]);
    await new PlatformClient({ apiKey: 'k', fetch: local.fetch }).ping();
    expect(local.calls[0].url).toBe('http://localhost:3000/platform/v1/ping');
    const slashed = fakeFetch([{ status: 200, json: {} }]);
    await new PlatformClient({ apiKey: 'k', baseUrl: `${BASE}/`, fetch: slashed.fetch }).ping();
    expect(slashed.calls[0].url).toBe(`${BASE}/ping`);
  });

  it('maps every operation to its method and path, escaping ids and skipping absent query values', async () => {
    const { client, calls } = clientWith(Array.from({ length: 22 }, () => ({ status: 200, json: { data: [], nextCursor: null } })));
    await client.messages.get('msg/1');
    await client.media.create({ fileName: 'a.png', mimeType: 'image/png', size: 1 });
    await client.media.get('med_1');
    await client.users.get(APP_USER);
    await client.consents.list({ status: 'opted_in', limit: 2 });
    await client.consents.list();
    await client.optInLinks.create({ ref: 'spring' });
    await client.businessProfile.get();
    await client.webhooks.list();
    await client.webhooks.create({ url: 'https://hooks.example.test/x', verifyToken: 'token-123', events: ['message.status'] });
    await client.webhooks.get('we_1');
    await client.webhooks.update('we_1', { events: ['consent.updated'] });
    await client.webhooks.delete('we_1');
    await client.webhooks.verify('we_1', { verifyToken: 'token-123' });
    await client.webhooks.test('we_1');
    await client.webhooks.rotateSecret('we_1');
    await client.webhookDeliveries.list({ status: 'failed', subscriptionId: 'we_1', limit: 5, cursor: undefined });
    await client.webhookDeliveries.replay('wd_1');
    await client.webhooks.recover('we_1', { since: '2026-10-13T09:30:00Z' });
    await client.events.list({ type: 'message.status', createdAfter: '2026-10-13T09:30:00+02:00', limit: 5 });
    await client.events.get('evt_1');
    await client.ping();
    expect(calls.map((c) => `${c.method} ${c.url.slice(BASE.length)}`)).toEqual([
      'GET /messages/msg%2F1',
      'POST /media',
      'GET /media/med_1',
      `GET /users/${APP_USER}`,
      'GET /consents?status=opted_in&limit=2',
      'GET /consents',
      'POST /optin-links',
      'GET /business-profile',
      'GET /webhooks',
      'POST /webhooks',
      'GET /webhooks/we_1',
      'PATCH /webhooks/we_1',
      'DELETE /webhooks/we_1',
      'POST /webhooks/we_1/verify',
      'POST /webhooks/we_1/test',
      'POST /webhooks/we_1/rotate-secret',
      'GET /webhook-deliveries?status=failed&subscriptionId=we_1&limit=5',
      'POST /webhook-deliveries/wd_1/replay',
      'POST /webhooks/we_1/recover',
      'GET /events?type=message.status&createdAfter=2026-10-13T09%3A30%3A00%2B02%3A00&limit=5',
      'GET /events/evt_1',
      'GET /ping',
    ]);
  });

  it('events.list walks every page; webhooks.recover sends since as ISO, and is not retried once sent', async () => {
    const event = (id: string) => ({
      id,
      type: 'consent.updated',
      apiVersion: API_VERSION,
      created: 1,
      appId: 'app_1',
      data: { appUserId: APP_USER, status: 'opted_in' },
    });
    const { client, calls } = clientWith([
      { status: 200, json: { data: [event('evt_3'), event('evt_2')], nextCursor: 'c2' } },
      { status: 200, json: { data: [event('evt_1')], nextCursor: null } },
      { status: 202, json: { recovered: 2 } },
      errorReply(503, 'internal_error', { type: 'api_error' }),
    ]);
    const ids: string[] = [];
    for await (const e of client.events.list({ type: 'consent.updated' })) ids.push(e.id);
    expect(ids).toEqual(['evt_3', 'evt_2', 'evt_1']);
    expect(calls[1].url).toBe(`${BASE}/events?type=consent.updated&cursor=c2`);
    const recovered = await client.webhooks.recover('we_1', { since: new Date('2026-10-13T09:30:00Z') });
    expect(recovered.recovered).toBe(2);
    expect(calls[2]).toMatchObject({ method: 'POST', body: '{"since":"2026-10-13T09:30:00.000Z"}' });
    expect(await caught(client.webhooks.recover('we_1', { since: '2026-10-13T09:30:00Z' }))).toBeInstanceOf(PlatformError);
    expect(calls).toHaveLength(4);
  });

  it('attaches the response metadata to results without making it part of their JSON', async () => {
    const { client } = clientWith([{ status: 202, json: ACCEPTED, headers: { 'Svc-Request-Id': 'req_abc', 'Idempotent-Replayed': 'true' } }]);
    const sent = await client.messages.send(TEXT);
    expect(sent.lastResponse).toMatchObject({ status: 202, requestId: 'req_abc', idempotentReplayed: true });
    expect(JSON.parse(JSON.stringify(sent))).toEqual(ACCEPTED);
  });

  it('answers undefined for 204 (DELETE)', async () => {
    const { client } = clientWith([{ status: 204 }]);
    await expect(client.webhooks.delete('we_1')).resolves.toBeUndefined();
  });

  it('maps the template calls and sends a template message', async () => {
    const page = { data: [], nextCursor: null };
    const { client, calls } = clientWith([
      { status: 201, json: {} },
      { status: 200, json: page },
      { status: 200, json: {} },
      { status: 200, json: {} },
      { status: 204 },
      { status: 202, json: { ...ACCEPTED, type: 'template' } },
    ]);
    const components = { body: { text: 'Hi {{name}}' } };
    await client.templates.create({ name: 'hello', language: 'en', category: 'utility', components, examples: { name: 'Ann' } });
    await client.templates.list({ status: 'approved', language: 'en_US', limit: 5 });
    await client.templates.get('tpl_1/x');
    await client.templates.update('tpl_1', { category: 'marketing' });
    await client.templates.delete('tpl_1');
    const sent = await client.messages.send({
      to: { appUserId: APP_USER },
      type: 'template',
      template: { name: 'hello', language: 'en', variables: { name: 'Ann' } },
    });
    expect(sent.type).toBe('template');
    expect(calls.map((c) => `${c.method} ${c.url.slice(BASE.length)}`)).toEqual([
      'POST /templates',
      'GET /templates?status=approved&language=en_US&limit=5',
      'GET /templates/tpl_1%2Fx',
      'PATCH /templates/tpl_1',
      'DELETE /templates/tpl_1',
      'POST /messages',
    ]);
    expect(JSON.parse(String(calls[5].body))).toMatchObject({ type: 'template', template: { name: 'hello', language: 'en', variables: { name: 'Ann' } } });
  });

  it('keeps the package version and the User-Agent in step', () => expect(SDK_VERSION).toBe(sdkPackage.version));
});

describe('idempotency keys', () => {
  it('generates a UUID key per send and reuses it on that send’s retries', async () => {
    const { client, calls } = clientWith([
      errorReply(500, 'internal_error', { type: 'api_error' }),
      { status: 202, json: ACCEPTED },
      { status: 202, json: ACCEPTED },
    ]);
    await client.messages.send(TEXT);
    await client.messages.send(TEXT);
    const keys = calls.map((c) => c.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('uses a given key as is, on every attempt', async () => {
    const { client, calls } = clientWith([{ networkError: fetchFailed('ECONNRESET') }, { status: 202, json: ACCEPTED }]);
    await client.messages.send(TEXT, { idempotencyKey: 'order-42' });
    expect(calls.map((c) => c.headers['idempotency-key'])).toEqual(['order-42', 'order-42']);
  });

  it('retries 409 idempotency_in_progress on a send: the first attempt is still running', async () => {
    const { client, calls } = clientWith([errorReply(409, 'idempotency_in_progress', { type: 'idempotency_error' }), { status: 202, json: ACCEPTED }]);
    await client.messages.send(TEXT, { idempotencyKey: 'k-1' });
    expect(calls).toHaveLength(2);
  });
});

describe('retries', () => {
  it('retries a 5xx with exponential backoff and jitter, then succeeds', async () => {
    const { client, calls, sleeps } = clientWith([
      errorReply(503, 'internal_error', { type: 'api_error' }),
      errorReply(500, 'internal_error', { type: 'api_error' }),
      { status: 200, json: { ok: true } },
    ]);
    await expect(client.ping()).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(3);
    // Retry n waits within [half, full] of 500 ms * 2^(n-1), never under 500 ms.
    expect(sleeps[0]).toBeGreaterThanOrEqual(500);
    expect(sleeps[0]).toBeLessThanOrEqual(500);
    expect(sleeps[1]).toBeGreaterThanOrEqual(500);
    expect(sleeps[1]).toBeLessThanOrEqual(1000);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    const { client, calls } = clientWith([
      errorReply(500, 'internal_error', { type: 'api_error' }),
      errorReply(500, 'internal_error', { type: 'api_error' }),
      errorReply(502, 'internal_error', { type: 'api_error' }),
    ]);
    const error = (await caught(client.ping())) as PlatformError;
    expect(calls).toHaveLength(3);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error.status).toBe(502);
  });

  it('honours maxRetries from the client and per call', async () => {
    const none = clientWith([errorReply(500, 'internal_error')], { maxRetries: 0 });
    await expect(none.client.ping()).rejects.toBeInstanceOf(PlatformError);
    expect(none.calls).toHaveLength(1);
    const perCall = clientWith([
      errorReply(500, 'internal_error'),
      errorReply(500, 'internal_error'),
      errorReply(500, 'internal_error'),
      errorReply(500, 'internal_error'),
      { status: 200, json: {} },
    ]);
    await perCall.client.ping({ maxRetries: 4 });
    expect(perCall.calls).toHaveLength(5);
  });

  it('waits exactly Retry-After seconds on 429 rate_limited', async () => {
    const { client, calls, sleeps } = clientWith([
      errorReply(429, 'rate_limited', { type: 'rate_limit_error', headers: { 'Retry-After': '3' } }),
      { status: 200, json: {} },
    ]);
    await client.ping();
    expect(calls).toHaveLength(2);
    expect(sleeps).toEqual([3000]);
  });

  it('retries 429 rate_limited even for a POST that is not idempotent: the API refused it before doing anything', async () => {
    const { client, calls } = clientWith([
      errorReply(429, 'rate_limited', { type: 'rate_limit_error', headers: { 'Retry-After': '1' } }),
      { status: 201, json: { secret: 'whsec_x' } },
    ]);
    await client.webhooks.create({ url: 'https://hooks.example.test/x', verifyToken: 'token-123', events: ['message.status'] });
    expect(calls).toHaveLength(2);
  });

  it('does not wait out a Retry-After beyond a minute, nor retry quota 429s', async () => {
    const long = clientWith([errorReply(429, 'rate_limited', { headers: { 'Retry-After': '3600' } })]);
    expect(((await caught(long.client.ping())) as PlatformError).code).toBe('rate_limited');
    expect(long.calls).toHaveLength(1);
    for (const code of ['daily_quota_exceeded', 'business_initiated_cap', 'media_rate_limited']) {
      const quota = clientWith([errorReply(429, code, { headers: { 'Retry-After': '1' } })]);
      expect(((await caught(quota.client.messages.send(TEXT))) as PlatformError).code).toBe(code);
      expect(quota.calls).toHaveLength(1);
    }
  });

  it('never retries other 4xx', async () => {
    for (const [status, code] of [
      [400, 'invalid_request'],
      [401, 'invalid_api_key'],
      [403, 'consent_required'],
      [404, 'recipient_not_found'],
      [409, 'media_not_uploaded'],
      [422, 'idempotency_key_reused'],
    ] as const) {
      const { client, calls, sleeps } = clientWith([errorReply(status, code)]);
      expect(((await caught(client.messages.send(TEXT))) as PlatformError).code).toBe(code);
      expect({ code, calls: calls.length, sleeps }).toEqual({ code, calls: 1, sleeps: [] });
    }
  });

  it('retries network errors on idempotent requests and sends', async () => {
    const { client, calls, sleeps } = clientWith([
      { networkError: fetchFailed('ECONNRESET') },
      { networkError: fetchFailed('ECONNREFUSED') },
      { status: 200, json: { ok: true } },
    ]);
    await expect(client.ping()).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('throws PlatformConnectionError once network retries run out, with the cause', async () => {
    const { client, calls } = clientWith([
      { networkError: fetchFailed('ECONNRESET') },
      { networkError: fetchFailed('ECONNRESET') },
      { networkError: fetchFailed('ECONNRESET') },
    ]);
    const error = (await caught(client.messages.get('msg_1'))) as PlatformConnectionError;
    expect(calls).toHaveLength(3);
    expect(error).toBeInstanceOf(PlatformConnectionError);
    expect(error).toMatchObject({ status: null, timedOut: false, message: expect.stringContaining('ECONNRESET') });
  });

  it('retries a non-idempotent POST only when the connection failed before the request was sent', async () => {
    const refused = clientWith([{ networkError: fetchFailed('ECONNREFUSED') }, { status: 200, json: { secret: 'whsec_new' } }]);
    await refused.client.webhooks.rotateSecret('we_1');
    expect(refused.calls).toHaveLength(2);

    // A reset or a 5xx may hide a rotated secret or a created endpoint: surfaced, not repeated.
    const reset = clientWith([{ networkError: fetchFailed('ECONNRESET') }]);
    await expect(reset.client.webhooks.rotateSecret('we_1')).rejects.toBeInstanceOf(PlatformConnectionError);
    expect(reset.calls).toHaveLength(1);
    const failed = clientWith([errorReply(500, 'internal_error', { type: 'api_error' })]);
    await expect(failed.client.media.create({ fileName: 'a.png', mimeType: 'image/png', size: 1 })).rejects.toBeInstanceOf(PlatformError);
    expect(failed.calls).toHaveLength(1);
  });

  it('times an attempt out after timeoutMs and retries idempotent requests', async () => {
    const { client, calls } = clientWith([{ hang: true }, { status: 200, json: { ok: true } }], { timeoutMs: 5 });
    await expect(client.ping()).resolves.toEqual({ ok: true });
    expect(calls).toHaveLength(2);
    const single = clientWith([{ hang: true }], { timeoutMs: 5 });
    const error = (await caught(single.client.optInLinks.create({}))) as PlatformConnectionError;
    expect(error).toMatchObject({ name: 'PlatformConnectionError', timedOut: true });
    expect(single.calls).toHaveLength(1);
  });

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController();
    const { client, calls } = clientWith([{ hang: true }, { status: 200, json: {} }]);
    const pending = client.ping({ signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
    expect(calls).toHaveLength(1);
  });
});

describe('errors', () => {
  it('throws PlatformError with every field of the envelope and the response headers', async () => {
    const details = [{ field: 'to.appUserId', issue: 'must match ^u_[0-9A-Za-z]{22}$' }];
    const { client } = clientWith([errorReply(400, 'invalid_request', { details, headers: { 'RateLimit-Remaining': '99' } })]);
    const error = (await caught(client.messages.send(TEXT))) as PlatformError;
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'PlatformError',
      code: 'invalid_request',
      type: 'invalid_request_error',
      status: 400,
      message: 'invalid_request happened',
      requestId: 'req_invalid_0000000000000000',
      docUrl: 'https://docs.example.test/errors#invalid_request',
      details,
    });
    expect(error.headers['ratelimit-remaining']).toBe('99');
  });

  it('narrows on code at compile time', async () => {
    const { client } = clientWith([errorReply(403, 'consent_required', { type: 'permission_error' })]);
    const error = await caught(client.messages.send(TEXT));
    let narrowed: 'consent_required' | undefined;
    if (error instanceof PlatformError && error.code === 'consent_required') narrowed = error.code;
    expect(narrowed).toBe('consent_required');
    if (error instanceof PlatformError) {
      // The root type-check (tsc -p tsconfig.json) fails if code were a plain string (unused directive) or the typo compiled.
      // @ts-expect-error 'consent_requird' is not an ErrorCode
      expect(error.code === 'consent_requird').toBe(false);
    }
  });

  it('throws PlatformConnectionError for an answer that is not the API’s envelope', async () => {
    const { client } = clientWith([{ status: 502, text: '<html>Bad gateway</html>' }], { maxRetries: 0 });
    const error = (await caught(client.ping())) as PlatformConnectionError;
    expect(error).toBeInstanceOf(PlatformConnectionError);
    expect(error).toMatchObject({ status: 502, body: '<html>Bad gateway</html>' });
  });

  it('refuses a client without a key', () => {
    expect(() => new PlatformClient({ apiKey: '' })).toThrow(TypeError);
  });
});

describe('media.upload', () => {
  const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  const UPLOAD_URL = 'https://storage.example.test/bucket/med_1?X-Amz-Signature=abc';
  const pending = { id: 'med_1', status: 'pending_upload', mimeType: 'image/png', fileName: 'logo.png', size: PNG.length };

  it('declares the file, PUTs the bytes to upload.url with exactly upload.headers, and answers the checked record', async () => {
    const uploadHeaders = { 'Content-Type': 'image/png', 'Content-Length': String(PNG.length) };
    const { client, calls } = clientWith([
      { status: 201, json: { media: pending, upload: { url: UPLOAD_URL, method: 'PUT', headers: uploadHeaders, expiresAt: '2026-10-01T00:15:00.000Z' } } },
      { status: 200, text: '' },
      { status: 200, json: { ...pending, status: 'ready', url: 'https://storage.example.test/get' } },
    ]);
    const media = await client.media.upload(PNG, { fileName: 'logo.png', mimeType: 'image/png' });
    expect(media).toMatchObject({ id: 'med_1', status: 'ready' });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([`POST ${BASE}/media`, `PUT ${UPLOAD_URL}`, `GET ${BASE}/media/med_1`]);
    expect(JSON.parse(calls[0].body as string)).toEqual({ fileName: 'logo.png', mimeType: 'image/png', size: PNG.length });
    // Exactly the instruction's headers: no API key goes to storage.
    expect(calls[1].headers).toEqual(uploadHeaders);
    expect(calls[1].body).toEqual(PNG);
  });

  it('accepts an ArrayBuffer and surfaces a refused PUT as PlatformConnectionError', async () => {
    const { client, calls } = clientWith([
      {
        status: 201,
        json: { media: pending, upload: { url: UPLOAD_URL, method: 'PUT', headers: { 'Content-Type': 'image/png' }, expiresAt: '2026-10-01T00:15:00.000Z' } },
      },
      { status: 403, text: '<Error><Code>SignatureDoesNotMatch</Code></Error>' },
    ]);
    const error = (await caught(client.media.upload(PNG.buffer, { fileName: 'logo.png', mimeType: 'image/png' }))) as PlatformConnectionError;
    expect(error).toBeInstanceOf(PlatformConnectionError);
    expect(error).toMatchObject({ status: 403, body: expect.stringContaining('SignatureDoesNotMatch') });
    expect(error.message).not.toContain('X-Amz-Signature');
    expect(calls).toHaveLength(2);
  });
});
