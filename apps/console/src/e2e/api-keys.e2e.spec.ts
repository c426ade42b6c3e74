import { unique } from '#platform/testing';
import { appOwnedBy, csrfOf, signedInVisitor } from './console-visitor.test-helpers';

/** The keys page over HTTP: the gateway's rules and refusals, in words, and the key sealed on its way (browser flow: console.browser.e2e). */
describe('console: API keys (e2e)', () => {
  it('creates a key with chosen scopes shown once; refuses a past expiry, no scopes, an unknown key and a forged form', async () => {
    const owner = `${unique('owner.')}@keys.example`;
    const appId = await appOwnedBy(owner, 'Keys App');
    const visitor = await signedInVisitor(owner);
    const list = await visitor.request('GET', `/apps/${appId}/keys`);
    expect(list.body).toContain('Each environment holds at most 2 active keys');
    const csrf = csrfOf(list.body);

    const created = await visitor.request('POST', `/apps/${appId}/keys`, {
      csrf,
      environment: 'live',
      scopes: ['messages:send', 'consents:read'],
      expiresOn: '2099-01-01',
    });
    expect(created.status).toBe(201);
    const key = /id="api-key" type="text" readonly value="(qk_live_[A-Za-z0-9]+)"/.exec(created.body)?.[1];
    expect(key).toBeDefined();
    const after = await visitor.request('GET', `/apps/${appId}/keys`);
    expect(after.body).not.toContain(key);
    expect(after.body).toMatch(
      /<td data-label="Environment">live<\/td>\s*<td data-label="Scopes">messages:send, consents:read<\/td>[\s\S]*?<td data-label="Last used">never<\/td>\s*<td data-label="Expires"><time datetime="2099-01-01T00:00:00.000Z" title="2099-01-01 00:00:00.000 UTC">1 Jan 2099<\/time><\/td>\s*<td data-label="State">active<\/td>/,
    );

    const past = await visitor.request('POST', `/apps/${appId}/keys`, { csrf, environment: 'live', scopes: 'messages:send', expiresOn: '2020-01-01' });
    expect([past.status, past.body.includes('The expiry must lie in the future.')]).toEqual([400, true]);
    const noScopes = await visitor.request('POST', `/apps/${appId}/keys`, { csrf, environment: 'sandbox' });
    expect([noScopes.status, noScopes.body.includes('Choose at least one scope.')]).toEqual([400, true]);
    const unknown = await visitor.request('POST', `/apps/${appId}/keys/key_${unique('none')}/revoke`, { csrf });
    expect([unknown.status, unknown.body.includes('No such key.')]).toEqual([404, true]);
    expect((await visitor.request('POST', `/apps/${appId}/keys`, { csrf: 'forged', environment: 'sandbox', scopes: 'messages:send' })).status).toBe(403);
  });
});
