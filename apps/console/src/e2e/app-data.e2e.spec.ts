import { addTester, admin, eventually, expectStatus, sendMessage, simAppAction, unique } from '#platform/testing';
import { csrfOf, signedInVisitor } from './console-visitor.test-helpers';

/** The overview's status, a message's timeline, the consents and opt-in links, over HTTP, as a member. */
async function ownedApp(owner: string) {
  const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
  const app = expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName: 'Data App', creatorEmail: owner }), 201).body;
  const key = expectStatus(await admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' }), 201).body;
  return { orgId: org.id, appId: app.id as string, sandboxKey: key.key as string, sandboxKeyId: key.id as string };
}

describe('console app data (e2e)', () => {
  it("shows the app's status, a message's timeline, its consents and makes opt-in links with a QR code", async () => {
    const owner = `${unique('owner.')}@data.example`;
    const app = await ownedApp(owner);
    const { userId, appUserId } = await addTester(app);
    const sent = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'Hello <b>there</b>' }), 202).body;
    // The message reaches the user's device (a delivered receipt, through the simulator).
    await eventually(async () => (await admin('POST', `/sim/users/${userId}/receipts`, { messageId: sent.id, status: 'delivered' })).status === 200, 15_000);
    const visitor = await signedInVisitor(owner);

    const overview = await visitor.request('GET', `/apps/${app.appId}`);
    expect(overview.body).toMatch(/<dt>Status<\/dt>\s*<dd>sandbox<\/dd>/);
    expect(overview.body).toMatch(/<dt>Verification<\/dt>\s*<dd>unverified<\/dd>/);

    const message = await eventually(async () => {
      const res = await visitor.request('GET', `/apps/${app.appId}/messages?id=${sent.id}`);
      return res.status === 200 && res.body.includes(': delivered') ? res : null;
    }, 15_000);
    expect(message.body).toContain(appUserId);
    expect(message.body).toContain('Hello &lt;b&gt;there&lt;/b&gt;');
    expect(message.body).toMatch(/: accepted<\/li>/);
    expect((await visitor.request('GET', `/apps/${app.appId}/messages?id=msg_${unique('none')}`)).status).toBe(404);
    expect((await visitor.request('GET', `/apps/${app.appId}/messages?id=not-an-id`)).status).toBe(400);

    expectStatus(await simAppAction(userId, app.appId, 'stop'), 200);
    const optedOut = await visitor.request('GET', `/apps/${app.appId}/consents?status=opted_out`);
    expect(optedOut.body).toContain(appUserId);
    expect((await visitor.request('GET', `/apps/${app.appId}/consents?status=opted_in`)).body).not.toContain(appUserId);
    // A cursor the consent service cannot read is the client's mistake: 400, not 500.
    expect((await visitor.request('GET', `/apps/${app.appId}/consents?cursor=not-a-cursor`)).status).toBe(400);

    const form = await visitor.request('GET', `/apps/${app.appId}/optin-links`);
    const created = await visitor.request('POST', `/apps/${app.appId}/optin-links`, { csrf: csrfOf(form.body), ref: 'spring-campaign', expiresInDays: '7' });
    expect(created.status).toBe(201);
    expect(created.body).toMatch(/href="https:\/\/chat\.example\.com\/b\/[^"]+\?optin=[^"]+"/);
    expect(created.body).toContain('alt="QR code of the opt-in link" src="data:image/svg+xml;base64,');
    const refused = await visitor.request('POST', `/apps/${app.appId}/optin-links`, { csrf: csrfOf(form.body), ref: 'bad ref!', expiresInDays: '91' });
    expect(refused.status).toBe(400);
    expect((await visitor.request('POST', `/apps/${app.appId}/optin-links`, { csrf: 'forged' })).status).toBe(403);
  });

  it('answers 404 for every page of an app the person is not a member of', async () => {
    const stranger = `${unique('stranger.')}@data.example`;
    await ownedApp(stranger);
    const other = await ownedApp(`${unique('owner.')}@data.example`);
    const visitor = await signedInVisitor(stranger);
    const apps = await visitor.request('GET', '/apps');
    for (const path of [
      '',
      '/members',
      '/keys',
      '/webhooks',
      '/webhook-deliveries',
      '/webhook-deliveries/wd_x',
      '/events',
      '/messages?id=msg_x',
      '/consents',
      '/optin-links',
      '/profile',
    ]) {
      expect([path, (await visitor.request('GET', `/apps/${other.appId}${path}`)).status]).toEqual([path, 404]);
    }
    const actions = [
      '/optin-links',
      '/webhooks',
      '/members',
      '/members/remove',
      '/webhooks/we_x/test',
      '/webhooks/we_x/verify',
      '/webhooks/we_x/rotate-secret',
      '/webhooks/we_x/events',
      '/webhooks/we_x/delete',
      '/webhooks/we_x/recover',
      '/webhook-deliveries/wd_x/replay',
      '/keys',
      '/keys/key_x/revoke',
      '/profile',
    ];
    for (const path of actions) {
      expect([path, (await visitor.request('POST', `/apps/${other.appId}${path}`, { csrf: csrfOf(apps.body), email: 'a@b.example' })).status]).toEqual([
        path,
        404,
      ]);
    }
  });
});
