import { admin, api, createTestApp, eventually, expectStatus, http, publicUrl, type TestApp } from '#platform/testing';

/** Every gateway refusal through real HTTP against the running stack (architecture section 3). */
function expectEnvelope(result: { status: number; body: any; headers: Headers }, status: number, code: string, type: string) {
  expect({ status: result.status, code: result.body?.error?.code }).toEqual({ status, code });
  expect(result.body.error.type).toBe(type);
  expect(typeof result.body.error.message).toBe('string');
  expect(result.body.error.requestId).toMatch(/^req_[0-9A-Za-z]{24}$/);
  expect(result.body.error.requestId).toBe(result.headers.get('svc-request-id'));
  expect(result.body.error.docUrl).toBe(`https://docs.example.com/platform/errors#${code}`);
  expect(result.headers.get('svc-version')).toBe('2026-10-01');
  expect(result.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
  expect(result.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
}

describe('gateway pipeline (e2e)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  describe('GET /ping', () => {
    it('answers the ping result with every field and the common headers', async () => {
      const res = expectStatus(await api('GET', '/ping', app.sandboxKey), 200);
      expect(res.body).toEqual({
        ok: true,
        appId: app.appId,
        appStatus: 'sandbox',
        environment: 'sandbox',
        scopes: [
          'messages:send',
          'messages:read',
          'media:write',
          'consents:read',
          'optin_links:create',
          'profile:write',
          'webhooks:manage',
          'templates:manage',
        ],
        apiVersion: '2026-10-01',
        requestId: res.headers.get('svc-request-id'),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(res.headers.get('svc-version')).toBe('2026-10-01');
      expect(Number(res.headers.get('ratelimit-remaining'))).toBeLessThan(Number(res.headers.get('ratelimit-limit')));
    });
  });

  describe('routes', () => {
    it.each([
      ['GET', '/nope'],
      ['DELETE', '/ping'],
      ['POST', '/business-profile'],
    ])('%s %s → 404 route_not_found, before auth', async (method, path) => {
      expectEnvelope(await api(method, path, null), 404, 'route_not_found', 'not_found_error');
    });
    it('outside the base path → 404 route_not_found', async () => {
      const res = await http(publicUrl().replace('/platform/v1', '') + '/ping');
      expectEnvelope(res, 404, 'route_not_found', 'not_found_error');
    });
  });

  describe('authentication', () => {
    it.each([
      ['no header', {}],
      ['not Bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
      ['malformed key', { authorization: 'Bearer qk_sb_short' }],
      ['unknown key', { authorization: 'Bearer qk_sb_' + 'x'.repeat(32) }],
    ])('%s → 401 invalid_api_key', async (_label, headers) => {
      expectEnvelope(await http(publicUrl() + '/ping', { headers }), 401, 'invalid_api_key', 'authentication_error');
    });

    it('a revoked key stops working within a second', async () => {
      const key = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox' }), 201).body;
      expectStatus(await api('GET', '/ping', key.key), 200);
      const revoked = expectStatus(await admin('DELETE', `/apps/${app.appId}/keys/${key.id}`), 200).body;
      expect(revoked.revokedAt).not.toBeNull();
      const started = Date.now();
      await eventually(async () => (await api('GET', '/ping', key.key)).status === 401, 1000, 20);
      expect(Date.now() - started).toBeLessThan(1000);
      expectEnvelope(await api('GET', '/ping', key.key), 401, 'invalid_api_key', 'authentication_error');
    });

    it('an expired key gives 401 once the clock passes its expiry', async () => {
      const clock = expectStatus(await admin('GET', '/clock'), 200).body;
      const expiresAt = new Date(new Date(clock.now).getTime() + 3600_000).toISOString();
      const key = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', expiresAt }), 201).body;
      expectStatus(await api('GET', '/ping', key.key), 200);
      expectStatus(await admin('POST', '/clock/advance', { seconds: 7200 }), 200);
      expectEnvelope(await api('GET', '/ping', key.key), 401, 'invalid_api_key', 'authentication_error');
      // It no longer counts against the two active keys either.
      expectStatus(await admin('DELETE', `/apps/${app.appId}/keys/${key.id}`), 200);
    });

    const metric = async () => {
      const text = (await http(process.env.TEST_ADMIN_URL!.replace('/admin/v1', '') + '/metrics')).body as string;
      return Number(/gateway_api_key_db_lookups_total\{[^}]*\} (\d+)/.exec(text)?.[1] ?? NaN);
    };

    it('looks a key up in Postgres at most once per minute', async () => {
      const fresh = await createTestApp();
      const before = await metric();
      for (let i = 0; i < 30; i++) expectStatus(await api('GET', '/ping', fresh.sandboxKey), 200);
      expect((await metric()) - before).toBe(1);
    });

    it('requests arriving together with a key not yet cached share one Postgres lookup', async () => {
      const fresh = await createTestApp();
      const before = await metric();
      const answers = await Promise.all(Array.from({ length: 30 }, () => api('GET', '/ping', fresh.sandboxKey)));
      for (const answer of answers) expectStatus(answer, 200);
      expect((await metric()) - before).toBe(1);
    });
  });

  describe('app status, environment and scope', () => {
    it('a live key before approval → 403 key_environment_mismatch; after approval it works', async () => {
      const own = await createTestApp();
      const live = expectStatus(await admin('POST', `/apps/${own.appId}/keys`, { environment: 'live' }), 201).body;
      expect(live.key).toMatch(/^qk_live_[0-9A-Za-z]{32}$/);
      expectEnvelope(await api('GET', '/ping', live.key), 403, 'key_environment_mismatch', 'permission_error');
      expect(expectStatus(await admin('POST', `/apps/${own.appId}/status`, { action: 'approve' }), 200).body).toEqual({
        status: 'internal_live',
        previousStatus: 'sandbox',
      });
      const ping = expectStatus(await api('GET', '/ping', live.key), 200).body;
      expect(ping).toMatchObject({ appStatus: 'internal_live', environment: 'live' });
      // Sandbox keys keep working on live apps.
      expectStatus(await api('GET', '/ping', own.sandboxKey), 200);
    });

    it('a suspended app → 403 app_suspended; reinstated it works again', async () => {
      const own = await createTestApp();
      expectStatus(await admin('POST', `/apps/${own.appId}/status`, { action: 'suspend', reason: 'abuse report' }), 200);
      expectEnvelope(await api('GET', '/ping', own.sandboxKey), 403, 'app_suspended', 'permission_error');
      expectStatus(await admin('POST', `/apps/${own.appId}/status`, { action: 'reinstate' }), 200);
      expect(expectStatus(await api('GET', '/ping', own.sandboxKey), 200).body.appStatus).toBe('sandbox');
    });

    it('a rejected app → 403 app_suspended', async () => {
      const own = await createTestApp();
      expectStatus(await admin('POST', `/apps/${own.appId}/status`, { action: 'reject' }), 200);
      expectEnvelope(await api('GET', '/ping', own.sandboxKey), 403, 'app_suspended', 'permission_error');
    });

    it('a key without the scope → 403 insufficient_scope; ping and GET /business-profile need none', async () => {
      const own = await createTestApp({ scopes: ['messages:read'] });
      expectStatus(await api('GET', '/ping', own.sandboxKey), 200);
      expectStatus(await api('GET', '/business-profile', own.sandboxKey), 200);
      expectEnvelope(await api('PATCH', '/business-profile', own.sandboxKey, { about: 'x' }), 403, 'insufficient_scope', 'permission_error');
    });

    it('revoking verification drops a public_live app to internal_live', async () => {
      const own = await createTestApp();
      for (const action of ['approve', 'approve']) expectStatus(await admin('POST', `/apps/${own.appId}/status`, { action }), 200);
      for (const status of ['pending', 'verified']) expectStatus(await admin('POST', `/apps/${own.appId}/verification`, { status }), 200);
      expect(expectStatus(await api('GET', '/ping', own.sandboxKey), 200).body.appStatus).toBe('public_live');
      const profile = expectStatus(await admin('POST', `/apps/${own.appId}/verification`, { status: 'revoked' }), 200).body;
      expect(profile.verificationStatus).toBe('revoked');
      expect(expectStatus(await api('GET', '/ping', own.sandboxKey), 200).body.appStatus).toBe('internal_live');
    });
  });

  describe('rate limit', () => {
    it('answers 429 rate_limited with Retry-After past the burst', async () => {
      const own = await createTestApp();
      // Well past the burst (200) and what refills (100 a second) while a loaded machine takes them in.
      const results = await Promise.all(Array.from({ length: 500 }, () => api('GET', '/ping', own.sandboxKey)));
      const limited = results.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThan(0);
      expectEnvelope(limited[0], 429, 'rate_limited', 'rate_limit_error');
      expect(Number(limited[0].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited[0].headers.get('ratelimit-remaining')).toBe('0');
      // The burst (200), less what leasing may strand: a replica drops an unused block (a twentieth of
      // the rate) when its lease lapses, so allow two blocks of 5.
      expect(results.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(190);
    });
  });

  describe('bodies', () => {
    const patch = (headers: Record<string, string>, rawBody?: string | Buffer) =>
      http(publicUrl() + '/business-profile', { method: 'PATCH', headers: { authorization: `Bearer ${app.sandboxKey}`, ...headers }, rawBody });

    it('not application/json → 415 unsupported_media_type', async () => {
      expectEnvelope(await patch({ 'content-type': 'text/plain' }, 'about=x'), 415, 'unsupported_media_type', 'invalid_request_error');
    });
    it('a body without a content type → 415', async () => {
      expectEnvelope(
        await http(publicUrl() + '/business-profile', { method: 'PATCH', headers: { authorization: `Bearer ${app.sandboxKey}` }, rawBody: Buffer.from('{}') }),
        415,
        'unsupported_media_type',
        'invalid_request_error',
      );
    });
    it('unparsable JSON → 400 invalid_json', async () => {
      expectEnvelope(await patch({ 'content-type': 'application/json' }, '{"about": '), 400, 'invalid_json', 'invalid_request_error');
    });
    it('over 1 MiB → 413 payload_too_large', async () => {
      const big = JSON.stringify({ about: 'x'.repeat(1024 * 1024 + 10) });
      expectEnvelope(await patch({ 'content-type': 'application/json' }, big), 413, 'payload_too_large', 'invalid_request_error');
    });
    it('unknown and bad properties → 400 invalid_request listing every field', async () => {
      const res = await api('PATCH', '/business-profile', app.sandboxKey, { displayName: 'x', websiteUrl: 'not a url', color: 'red' });
      expectEnvelope(res, 400, 'invalid_request', 'invalid_request_error');
      const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
      expect(fields).toEqual(['color', 'displayName', 'websiteUrl']);
    });
    it('a body that is not an object → 400 invalid_request', async () => {
      expectEnvelope(await api('PATCH', '/business-profile', app.sandboxKey, [1, 2]), 400, 'invalid_request', 'invalid_request_error');
    });
    it('an unsupported Svc-Version header → 400 invalid_request', async () => {
      expectEnvelope(await api('GET', '/ping', app.sandboxKey, undefined, { 'svc-version': '2020-01-01' }), 400, 'invalid_request', 'invalid_request_error');
      expectStatus(await api('GET', '/ping', app.sandboxKey, undefined, { 'svc-version': '2026-10-01' }), 200);
    });
  });

  describe('business profile', () => {
    it('GET and PATCH round-trip every field; domain follows websiteUrl', async () => {
      const before = expectStatus(await api('GET', '/business-profile', app.sandboxKey), 200).body;
      expect(before).toMatchObject({
        appId: app.appId,
        displayName: 'Test Business',
        verificationStatus: 'unverified',
        verifiedAt: null,
        avatarUrl: null,
        domain: null,
      });
      const after = expectStatus(
        await api('PATCH', '/business-profile', app.sandboxKey, {
          displayName: 'Renamed Co',
          about: 'We ship things',
          websiteUrl: 'https://shop.example.com/home',
          category: 'retail',
        }),
        200,
      ).body;
      expect(after).toMatchObject({
        displayName: 'Renamed Co',
        about: 'We ship things',
        websiteUrl: 'https://shop.example.com/home',
        domain: 'shop.example.com',
        category: 'retail',
      });
      expect(Object.keys(after).sort()).toEqual([
        'about',
        'appId',
        'avatarUrl',
        'category',
        'displayName',
        'domain',
        'handle',
        'updatedAt',
        'verificationStatus',
        'verifiedAt',
        'websiteUrl',
      ]);
      const cleared = expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { websiteUrl: null, about: null }), 200).body;
      expect(cleared).toMatchObject({ websiteUrl: null, domain: null, about: null, displayName: 'Renamed Co' });
    });
    it('an unknown avatarMediaId is 400 invalid_request on that field', async () => {
      const res = await api('PATCH', '/business-profile', app.sandboxKey, { avatarMediaId: 'med_123' });
      expectEnvelope(res, 400, 'invalid_request', 'invalid_request_error');
      expect(res.body.error.details).toEqual([{ field: 'avatarMediaId', issue: expect.any(String) }]);
    });
  });
});
