import {
  admin,
  advanceClock,
  api,
  appUserIdOf,
  createTestApp,
  createTestUser,
  expectError,
  expectStatus,
  platformNow,
  simAppAction,
  simSendText,
  type TestApp,
} from '#platform/testing';

const DAY = 24 * 3600;

describe('consent through the public and admin APIs (e2e)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  const getUser = (appUserId: string, key = app.sandboxKey) => api('GET', `/users/${appUserId}`, key);

  describe('user_initiated: a first message opts in', () => {
    it('opts the user in, opens the window, and GET /users shows both', async () => {
      const user = await createTestUser(app.orgId);
      const before = await platformNow();
      const sent = await simSendText(user.id, app.appId);
      expect(sent.id).toMatch(/^msg_/);
      expect(sent.appUserId).toBe(await appUserIdOf(app.appId, user.id));

      const res = expectStatus(await getUser(sent.appUserId), 200);
      expect(res.body).toEqual({
        appUserId: sent.appUserId,
        consent: {
          appUserId: sent.appUserId,
          status: 'opted_in',
          source: 'user_initiated',
          ref: null,
          optedInAt: expect.any(String),
          optedOutAt: null,
          updatedAt: res.body.consent.optedInAt,
        },
        window: { open: true, expiresAt: expect.any(String) },
      });
      const optedInAt = Date.parse(res.body.consent.optedInAt);
      expect(optedInAt).toBeGreaterThanOrEqual(before.getTime());
      expect(Date.parse(res.body.window.expiresAt)).toBe(optedInAt + DAY * 1000);
    });

    it('a second message keeps the consent and moves the window', async () => {
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      const first = expectStatus(await getUser(appUserId), 200).body;
      await advanceClock(3600);
      await simSendText(user.id, app.appId, 'again');
      const second = expectStatus(await getUser(appUserId), 200).body;
      expect(second.consent).toEqual(first.consent);
      expect(Date.parse(second.window.expiresAt)).toBeGreaterThanOrEqual(Date.parse(first.window.expiresAt) + 3600 * 1000);
    });
  });

  describe('reply window (D6, test clock)', () => {
    it('is open for 24 hours after the last user message, then closed', async () => {
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      const open = expectStatus(await getUser(appUserId), 200).body.window;
      expect(open.open).toBe(true);
      const expiresAt = Date.parse(open.expiresAt);

      const now = await platformNow();
      const secondsBeforeExpiry = Math.floor((expiresAt - now.getTime()) / 1000) - 60;
      await advanceClock(secondsBeforeExpiry);
      expect(expectStatus(await getUser(appUserId), 200).body.window).toEqual({ open: true, expiresAt: open.expiresAt });

      await advanceClock(120);
      expect(expectStatus(await getUser(appUserId), 200).body.window).toEqual({ open: false, expiresAt: null });

      // A new message reopens it.
      await simSendText(user.id, app.appId);
      expect(expectStatus(await getUser(appUserId), 200).body.window.open).toBe(true);
    });
  });

  describe('opt_in_link', () => {
    it('creates a signed link to the business profile, 30 days by default', async () => {
      const now = await platformNow();
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, {}), 201).body;
      const profile = expectStatus(await api('GET', '/business-profile', app.sandboxKey), 200).body;
      expect(link).toEqual({ url: expect.any(String), token: expect.any(String), ref: null, expiresAt: expect.any(String) });
      expect(link.url).toBe(`https://chat.example.com/b/${profile.handle}?optin=${link.token}`);
      const days = (Date.parse(link.expiresAt) - now.getTime()) / (DAY * 1000);
      expect(days).toBeGreaterThanOrEqual(30);
      expect(days).toBeLessThan(30.01);
    });

    it('takes ref and expiresInDays', async () => {
      const now = await platformNow();
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, { ref: 'spring.sale:2026-a_b', expiresInDays: 90 }), 201).body;
      expect(link.ref).toBe('spring.sale:2026-a_b');
      expect(Math.round((Date.parse(link.expiresAt) - now.getTime()) / (DAY * 1000))).toBe(90);
    });

    it.each([
      [{ ref: 'has space' }, 'ref'],
      [{ ref: '' }, 'ref'],
      [{ ref: 'x'.repeat(65) }, 'ref'],
      [{ ref: 5 }, 'ref'],
      [{ expiresInDays: 0 }, 'expiresInDays'],
      [{ expiresInDays: 91 }, 'expiresInDays'],
      [{ expiresInDays: 1.5 }, 'expiresInDays'],
      [{ expiresInDays: '7' }, 'expiresInDays'],
      [{ other: true }, 'other'],
    ])('refuses %j with invalid_request on %s', async (body, field) => {
      const res = await api('POST', '/optin-links', app.sandboxKey, body);
      expectError(res, 400, 'invalid_request');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('opening does not opt in; Allow does and carries the ref', async () => {
      const user = await createTestUser(app.orgId);
      const appUserId = await appUserIdOf(app.appId, user.id);
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, { ref: 'campaign-7' }), 201).body;

      const opened = expectStatus(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/open`), 200).body;
      expect(opened.appId).toBe(app.appId);
      expectError(await getUser(appUserId), 404, 'not_found');

      const consent = expectStatus(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/allow`), 200).body;
      expect(consent).toMatchObject({ appUserId, status: 'opted_in', source: 'opt_in_link', ref: 'campaign-7', optedOutAt: null });
      expect(expectStatus(await getUser(appUserId), 200).body.consent).toEqual(consent);
      // The link opens no reply window: only the user's messages do.
      expect(expectStatus(await getUser(appUserId), 200).body.window).toEqual({ open: false, expiresAt: null });
    });

    it('Allow without opening first opts nobody in', async () => {
      const user = await createTestUser(app.orgId);
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, {}), 201).body;
      expectError(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/allow`), 409, 'invalid_transition');
      expectError(await getUser(await appUserIdOf(app.appId, user.id)), 404, 'not_found');
    });

    it('a tampered link opts nobody in', async () => {
      const user = await createTestUser(app.orgId);
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, { ref: 'a' }), 201).body;
      const [payload] = link.token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
      // A longer life with the original signature, and the original with a bad signature.
      const forged = `${Buffer.from(JSON.stringify({ ...claims, e: claims.e + 365 * DAY })).toString('base64url')}.${link.token.split('.')[1]}`;
      const badSignature = `${payload}.${'A'.repeat(43)}`;
      for (const token of [forged, badSignature]) {
        const open = await admin('POST', `/sim/users/${user.id}/optin/${token}/open`);
        expectError(open, 400, 'invalid_request');
        expect(open.body.error.details).toEqual([{ field: 'token', issue: 'is not a valid opt-in link of this app' }]);
        expectError(await admin('POST', `/sim/users/${user.id}/optin/${token}/allow`), 400, 'invalid_request');
      }
      expectError(await admin('POST', `/sim/users/${user.id}/optin/not-a-token/open`), 404, 'not_found');
      expectError(await getUser(await appUserIdOf(app.appId, user.id)), 404, 'not_found');
    });

    it('an expired link opens but its Allow opts nobody in', async () => {
      const user = await createTestUser(app.orgId);
      const link = expectStatus(await api('POST', '/optin-links', app.sandboxKey, { expiresInDays: 1 }), 201).body;
      await advanceClock(DAY + 60);
      expectStatus(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/open`), 200);
      const allow = await admin('POST', `/sim/users/${user.id}/optin/${link.token}/allow`);
      expectError(allow, 400, 'invalid_request');
      expect(allow.body.error.details[0]).toEqual({ field: 'token', issue: `expired at ${link.expiresAt}` });
      expectError(await getUser(await appUserIdOf(app.appId, user.id)), 404, 'not_found');
    });

    it("another app's link opts the user in to that app only", async () => {
      const other = await createTestApp();
      const user = await createTestUser(app.orgId);
      const link = expectStatus(await api('POST', '/optin-links', other.sandboxKey, { ref: 'theirs' }), 201).body;
      expectStatus(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/open`), 200);
      expectStatus(await admin('POST', `/sim/users/${user.id}/optin/${link.token}/allow`), 200);
      const theirs = await appUserIdOf(other.appId, user.id);
      expect(expectStatus(await getUser(theirs, other.sandboxKey), 200).body.consent.ref).toBe('theirs');
      expectError(await getUser(theirs), 404, 'not_found');
      expectError(await getUser(await appUserIdOf(app.appId, user.id)), 404, 'not_found');
    });
  });

  describe('stop, block, unblock, profile allow (D5)', () => {
    it('moves through every state and GET /users follows', async () => {
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      const status = async () => expectStatus(await getUser(appUserId), 200).body.consent;

      const stopped = expectStatus(await simAppAction(user.id, app.appId, 'stop'), 200).body;
      expect(stopped).toMatchObject({ status: 'opted_out', source: 'user_initiated', optedOutAt: expect.any(String) });
      expect(await status()).toEqual(stopped);

      const allowed = expectStatus(await simAppAction(user.id, app.appId, 'allow'), 200).body;
      expect(allowed).toMatchObject({ status: 'opted_in', source: 'profile_allow', optedOutAt: null });

      const blocked = expectStatus(await simAppAction(user.id, app.appId, 'block'), 200).body;
      expect(blocked).toMatchObject({ status: 'blocked', source: 'profile_allow' });

      // Blocked: messages and Allow are refused until unblocked.
      expectError(await admin('POST', `/sim/users/${user.id}/messages`, { appId: app.appId, type: 'text', text: 'hi' }), 409, 'invalid_transition');
      expectError(await simAppAction(user.id, app.appId, 'allow'), 409, 'invalid_transition');
      expect((await status()).status).toBe('blocked');

      const unblocked = expectStatus(await simAppAction(user.id, app.appId, 'unblock'), 200).body;
      expect(unblocked).toMatchObject({ status: 'opted_out', optedOutAt: blocked.optedOutAt });

      await simSendText(user.id, app.appId);
      expect(await status()).toMatchObject({ status: 'opted_in', source: 'user_initiated' });
    });

    it('stop or block without any chat is refused', async () => {
      const user = await createTestUser(app.orgId);
      expectError(await simAppAction(user.id, app.appId, 'stop'), 409, 'invalid_transition');
      expectError(await simAppAction(user.id, app.appId, 'block'), 409, 'invalid_transition');
      expectError(await simAppAction(user.id, app.appId, 'unblock'), 409, 'invalid_transition');
    });

    it('unknown users and apps are 404, unknown actions route_not_found', async () => {
      const user = await createTestUser(app.orgId);
      expectError(await simAppAction('usr_nobody', app.appId, 'allow'), 404, 'not_found');
      expectError(await simAppAction(user.id, 'app_nothing', 'allow'), 404, 'not_found');
      expectError(await admin('POST', `/sim/users/${user.id}/apps/${app.appId}/dance`), 404, 'route_not_found');
    });
  });

  describe('sandbox testers', () => {
    it('invite, accept: opted in with source sandbox_tester', async () => {
      const user = await createTestUser(app.orgId);
      expect(expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201).body).toEqual({
        appId: app.appId,
        userId: user.id,
        status: 'invited',
      });
      // Inviting again while pending is harmless.
      expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
      const consent = expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200).body;
      expect(consent).toMatchObject({ status: 'opted_in', source: 'sandbox_tester', ref: null });
      expectError(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 409, 'invalid_transition');
    });

    it('accepting without an invitation is refused', async () => {
      const user = await createTestUser(app.orgId);
      expectError(await simAppAction(user.id, app.appId, 'accept-tester'), 409, 'invalid_transition');
    });

    it('invitations need a real user and app', async () => {
      expectError(await admin('POST', `/apps/${app.appId}/testers`, { userId: 'usr_nobody' }), 404, 'not_found');
      expectError(await admin('POST', `/apps/app_nothing/testers`, { userId: 'usr_x' }), 404, 'not_found');
      expectError(await admin('POST', `/apps/${app.appId}/testers`, {}), 400, 'invalid_request');
    });
  });

  describe('account deletion', () => {
    it('opts the user out of every app they dealt with', async () => {
      const other = await createTestApp();
      const user = await createTestUser(app.orgId);
      const a = await simSendText(user.id, app.appId);
      const b = await simSendText(user.id, other.appId);
      expectStatus(await simAppAction(user.id, other.appId, 'block'), 200);
      expectStatus(await admin('PATCH', `/users/${user.id}`, { status: 'deleted' }), 200);
      expect(expectStatus(await getUser(a.appUserId), 200).body.consent).toMatchObject({ status: 'opted_out' });
      expect(expectStatus(await getUser(b.appUserId, other.sandboxKey), 200).body.consent).toMatchObject({ status: 'opted_out' });
      // A deleted account cannot act any more.
      expectError(await admin('POST', `/sim/users/${user.id}/messages`, { appId: app.appId, type: 'text', text: 'hi' }), 409, 'invalid_transition');
    });
  });

  describe('GET /users/{appUserId}', () => {
    it('unknown → 404 not_found; over 64 characters → 400 invalid_request', async () => {
      expectError(await getUser('u_AAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found');
      expectError(await getUser('not-an-app-user-id'), 404, 'not_found');
      const long = await getUser('u_' + 'A'.repeat(63));
      expectError(long, 400, 'invalid_request');
      expect(long.body.error.details).toEqual([{ field: 'appUserId', issue: 'must be at most 64 characters' }]);
    });

    it("another app's user looks absent", async () => {
      const other = await createTestApp();
      const user = await createTestUser(app.orgId);
      const { appUserId } = await simSendText(user.id, app.appId);
      expectError(await getUser(appUserId, other.sandboxKey), 404, 'not_found');
    });

    it('needs consents:read', async () => {
      const key = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'sandbox', scopes: ['messages:send'] }), 201).body;
      expectError(await getUser('u_AAAAAAAAAAAAAAAAAAAAAA', key.key), 403, 'insufficient_scope');
      expectError(await api('GET', '/consents', key.key), 403, 'insufficient_scope');
      expectError(await api('POST', '/optin-links', key.key, {}), 403, 'insufficient_scope');
      expectStatus(await admin('DELETE', `/apps/${app.appId}/keys/${key.id}`), 200);
    });
  });
});
