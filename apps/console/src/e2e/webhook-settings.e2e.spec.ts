import { startWebhookReceiver, TEST_WEBHOOK_HOSTS, unique, type HttpsReceiver } from '#platform/testing';
import { appOwnedBy, csrfOf, signedInVisitor } from './console-visitor.test-helpers';

/** An endpoint's settings in the console: verify again, rotate the secret (shown once), change its events. */
let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(4);
});
afterAll(async () => {
  await receiver?.close();
});

describe('console webhook settings (e2e)', () => {
  it("verifies, rotates the secret and changes an endpoint's events through the dispatcher's rules", async () => {
    const owner = `${unique('owner.')}@hooks.example`;
    const appId = await appOwnedBy(owner, 'Settings App');
    const visitor = await signedInVisitor(owner);
    const url = `https://${TEST_WEBHOOK_HOSTS[4]}/${unique('hook-')}`;
    const verifyToken = unique('token-');

    const list = await visitor.request('GET', `/apps/${appId}/webhooks`);
    const added = await visitor.request('POST', `/apps/${appId}/webhooks`, { csrf: csrfOf(list.body), url, verifyToken, events: 'message.status' });
    expect(added.status).toBe(201);
    const page = await visitor.request('GET', `/apps/${appId}/webhooks`);
    const endpointId = new RegExp(`/apps/${appId}/webhooks/(we_[A-Za-z0-9]+)/verify`).exec(page.body)![1];
    const csrf = csrfOf(page.body);

    // A wrong token is refused with the API's code and words; the right one verifies again.
    const wrong = await visitor.request('POST', `/apps/${appId}/webhooks/${endpointId}/verify`, { csrf, verifyToken: 'not-the-token' });
    expect(wrong.status).toBe(422);
    expect((await visitor.request('POST', `/apps/${appId}/webhooks/${endpointId}/verify`, { csrf, verifyToken })).location).toBe(`/apps/${appId}/webhooks`);

    const rotated = await visitor.request('POST', `/apps/${appId}/webhooks/${endpointId}/rotate-secret`, { csrf });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatch(/value="whsec_[A-Za-z0-9+/=]+"/);
    expect(rotated.body).toContain('The previous secret keeps signing beside it until');

    const changed = await visitor.request('POST', `/apps/${appId}/webhooks/${endpointId}/events`, {
      csrf,
      events: ['consent.updated', 'message.received'],
    });
    expect(changed.location).toBe(`/apps/${appId}/webhooks`);
    const after = await visitor.request('GET', `/apps/${appId}/webhooks`);
    expect(after.body).toContain('<td data-label="Events">consent.updated, message.received</td>');
    // Subscribing to nothing breaks the API's rule: refused, not a 5xx.
    const none = await visitor.request('POST', `/apps/${appId}/webhooks/${endpointId}/events`, { csrf });
    expect(none.status).toBe(400);
  });
});
