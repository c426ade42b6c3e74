import { appUserIdFor } from '#platform/contracts';
import { admin, api, createTestApp, eventually, expectStatus, http, unique } from '#platform/testing';

describe('admin API (e2e)', () => {
  it('refuses a missing or wrong admin token with 401 in the envelope', async () => {
    for (const token of ['', 'wrong-token']) {
      const res = await admin('GET', '/apps/app_x', undefined, token);
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ code: 'invalid_api_key', type: 'authentication_error' });
      expect(res.body.error.requestId).toBe(res.headers.get('svc-request-id'));
    }
  });

  it('answers unknown routes with route_not_found', async () => {
    const res = await admin('GET', '/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('route_not_found');
    const outside = await http(process.env.TEST_ADMIN_URL!.replace('/admin/v1', '/elsewhere'));
    expect(outside.status).toBe(404);
    expect(outside.body.error).toMatchObject({ code: 'route_not_found', type: 'not_found_error' });
  });

  it('creates orgs, users and apps; validates bodies', async () => {
    const org = expectStatus(await admin('POST', '/orgs', { name: 'Widgets', allowsExternalBusinesses: false }), 201).body;
    expect(org).toEqual({ id: expect.stringMatching(/^org_/), name: 'Widgets', allowsExternalBusinesses: false });
    expect(expectStatus(await admin('PATCH', `/orgs/${org.id}`, { allowsExternalBusinesses: true }), 200).body.allowsExternalBusinesses).toBe(true);

    const email = `${unique('someone.')}@widgets.example`;
    const user = expectStatus(await admin('POST', '/users', { orgId: org.id, email }), 201).body;
    expect(user).toMatchObject({ id: expect.stringMatching(/^usr_/), orgId: org.id, email, status: 'active' });
    expect(expectStatus(await admin('PATCH', `/users/${user.id}`, { status: 'deactivated' }), 200).body.status).toBe('deactivated');

    const bad = await admin('POST', '/users', { orgId: org.id, email: 'not-an-email', extra: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'extra']);

    const handle = unique('widgets-');
    const app = expectStatus(
      await admin('POST', '/apps', { orgId: org.id, handle, displayName: 'Widgets Inc', creatorEmail: 'owner@widgets.example' }),
      201,
    ).body;
    expect(app).toEqual({ id: expect.stringMatching(/^app_/), orgId: org.id, handle, status: 'sandbox' });
    expect(expectStatus(await admin('GET', `/apps/${app.id}`), 200).body).toEqual({
      id: app.id,
      orgId: org.id,
      handle,
      status: 'sandbox',
      verificationStatus: 'unverified',
      dailyQuota: 10000,
    });
    expect(expectStatus(await admin('PATCH', `/apps/${app.id}`, { dailyQuota: 5 }), 200).body.dailyQuota).toBe(5);
    expect((await admin('POST', '/apps', { orgId: org.id, handle, displayName: 'Again' })).body.error.code).toBe('handle_taken');
    expect((await admin('POST', '/apps', { orgId: 'org_missing', handle: unique('x-'), displayName: 'Nope' })).status).toBe(404);

    const appUser = expectStatus(await admin('GET', `/apps/${app.id}/users/${user.id}`), 200).body;
    expect(appUser.appUserId).toBe(appUserIdFor('test-app-user-id-secret', app.id, user.id));
    expect(appUser.appUserId).toMatch(/^u_[0-9A-Za-z]{22}$/);
  });

  it('refuses moves the access ladder does not allow with 409', async () => {
    const app = await createTestApp();
    const res = await admin('POST', `/apps/${app.appId}/status`, { action: 'reinstate' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_transition');
    expect((await admin('POST', `/apps/${app.appId}/verification`, { status: 'verified' })).status).toBe(409);
    expect((await admin('POST', '/apps/app_unknown/status', { action: 'approve' })).status).toBe(404);
  });

  it('keeps at most two active keys per environment and never shows a key or its hash again', async () => {
    const app = await createTestApp();
    expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', scopes: ['messages:read'] }), 201);
    const third = await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox' });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('key_limit_reached');
    expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'live' }), 201);

    const listed = expectStatus(await admin('GET', `/apps/${app.appId}/keys`), 200).body.data;
    expect(listed).toHaveLength(3);
    for (const key of listed) {
      expect(Object.keys(key).sort()).toEqual(['createdAt', 'environment', 'expiresAt', 'id', 'lastUsedAt', 'prefix', 'revokedAt', 'scopes']);
      expect(key.prefix).toMatch(/^qk_(sb|live)_[0-9A-Za-z]{4}$/);
    }
    // lastUsedAt appears after use; it is written off the request path, so wait for it.
    expectStatus(await api('GET', '/ping', app.sandboxKey), 200);
    const used = await eventually(async () => {
      const listed = expectStatus(await admin('GET', `/apps/${app.appId}/keys`), 200).body.data.find((k: { id: string }) => k.id === app.sandboxKeyId);
      return listed.lastUsedAt !== null ? listed : null;
    });
    expect(used.lastUsedAt).not.toBeNull();

    expectStatus(await admin('DELETE', `/apps/${app.appId}/keys/${app.sandboxKeyId}`), 200);
    expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox' }), 201);
    expect((await admin('DELETE', `/apps/${app.appId}/keys/key_unknown`)).status).toBe(404);
    const badScope = await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', scopes: ['everything'] });
    expect(badScope.status).toBe(400);
  });

  it('moves the test clock for every service', async () => {
    const before = new Date(expectStatus(await admin('GET', '/clock'), 200).body.now).getTime();
    const moved = new Date(expectStatus(await admin('POST', '/clock/advance', { seconds: 86400 }), 200).body.now).getTime();
    expect(moved - before).toBeGreaterThanOrEqual(86400_000);
    expect(moved - before).toBeLessThan(86400_000 + 60_000);
    expect((await admin('POST', '/clock/advance', { seconds: 0 })).status).toBe(400);
    // The profile service stamps with the same clock.
    const app = await createTestApp();
    const profile = expectStatus(await api('PATCH', '/business-profile', app.sandboxKey, { about: 'later' }), 200).body;
    expect(new Date(profile.updatedAt).getTime()).toBeGreaterThanOrEqual(moved);
  });

  it('serves health, readiness and metrics on the admin port', async () => {
    const base = process.env.TEST_ADMIN_URL!.replace('/admin/v1', '');
    expect((await http(base + '/healthz')).status).toBe(200);
    expect((await http(base + '/readyz')).body).toMatchObject({ ok: true, checks: { postgres: true, kafka: true } });
    expect((await http(base + '/metrics')).body).toContain('http_request_duration_seconds');
  });
});
