import { api, createTestApp, http, publicUrl, sendMessage, type HttpResult, type TestApp } from '#platform/testing';

/** Issue 32, "No 5xx from input": hostile strings and shapes are refused at the gateway, never stored. */
function expectInvalid(res: HttpResult, field: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'invalid_request' });
  expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  expect(res.headers.get('svc-request-id')).toBe(res.body.error.requestId);
}

/** A JSON text nested `depth` levels deep, built by hand: JSON.stringify would recurse as deep. */
function nested(depth: number): string {
  return '{"to":' + '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) + ',"type":"text","text":"x"}';
}

describe('hostile input (e2e)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  describe('NUL and control characters in path ids and query values', () => {
    it.each([
      ['GET', '/messages/a%00b', 'id'],
      ['GET', '/media/a%00b', 'id'],
      ['GET', '/users/u_%00', 'appUserId'],
      ['GET', '/webhooks/a%00b', 'id'],
      ['PATCH', '/webhooks/a%00b', 'id'],
      ['DELETE', '/webhooks/a%00b', 'id'],
      ['POST', '/webhooks/a%00b/test', 'id'],
      ['POST', '/webhooks/a%00b/rotate-secret', 'id'],
      ['POST', '/webhook-deliveries/a%00b/replay', 'id'],
      ['GET', '/messages/a%0Ab', 'id'],
    ])('%s %s → 400 naming %s', async (method, path, field) => {
      expectInvalid(await api(method, path, app.sandboxKey, method === 'GET' || method === 'DELETE' ? undefined : {}), field);
    });
    it.each([
      ['/webhook-deliveries?subscriptionId=%00', 'subscriptionId'],
      ['/webhook-deliveries?cursor=a%00', 'cursor'],
      ['/consents?cursor=%00', 'cursor'],
      ['/consents?x%00=1', 'x\u0000'],
    ])('GET %s → 400 naming %s', async (path, field) => {
      expectInvalid(await api('GET', path, app.sandboxKey), field);
    });
  });

  describe('NUL and unpaired surrogates in body strings', () => {
    const to = { appUserId: 'u_7Hq2LxP9sKd3Vb1Nc5Zr8T' };
    it.each([
      ['text', { to, type: 'text', text: 'a\u0000b' }],
      ['text', { to, type: 'text', text: 'a\ud800b' }],
      ['clientReference', { to, type: 'text', text: 'x', clientReference: '\udc00' }],
      ['mediaId', { to, type: 'image', mediaId: 'm\u0000' }],
      ['to.email', { to: { email: 'a\ud800@example.com' }, type: 'text', text: 'x' }],
      ['to.appUserId', { to: { appUserId: '\u0000' }, type: 'text', text: 'x' }],
    ])('POST /messages with a bad %s → 400', async (field, body) => {
      expectInvalid(await sendMessage(app.sandboxKey, body), field);
    });
    it.each([
      ['fileName', { fileName: 'a\u0000.png', mimeType: 'image/png', size: 10 }],
      ['mimeType', { fileName: 'a.png', mimeType: 'image/png\ud800', size: 10 }],
    ])('POST /media with a bad %s → 400', async (field, body) => {
      expectInvalid(await api('POST', '/media', app.sandboxKey, body), field);
    });
    it.each([
      ['displayName', { displayName: 'Acme\u0000' }],
      ['about', { about: '\ud800' }],
      ['category', { category: 'x\u0000' }],
      ['avatarMediaId', { avatarMediaId: 'm\udfff' }],
    ])('PATCH /business-profile with a bad %s → 400', async (field, body) => {
      expectInvalid(await api('PATCH', '/business-profile', app.sandboxKey, body), field);
    });
    it('a bad string in an array item is named by its index', async () => {
      expectInvalid(
        await api('POST', '/webhooks', app.sandboxKey, { url: 'https://hooks.example.com/x', verifyToken: 'abcdefgh', events: ['message.status', 'x\u0000'] }),
        'events.1',
      );
    });
  });

  describe('depth and width', () => {
    it.each(['POST /messages', 'POST /media', 'PATCH /business-profile', 'POST /optin-links', 'POST /webhooks'])(
      '%s: a 6 KB body nested 3 000 levels deep → 400',
      async (route) => {
        const [method, path] = route.split(' ');
        const res = await http(publicUrl() + path, {
          method,
          rawBody: nested(3000),
          headers: { authorization: `Bearer ${app.sandboxKey}`, 'content-type': 'application/json', 'idempotency-key': `deep-${Date.now()}-${Math.random()}` },
        });
        expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'invalid_request' });
      },
    );
    it('33 levels are refused, 32 are not refused for their depth', async () => {
      const deep = await sendMessage(app.sandboxKey, JSON.parse(nested(31)));
      expect(deep.body.error.details.some((d: { issue: string }) => /deeper than/.test(d.issue))).toBe(false);
      const deeper = await sendMessage(app.sandboxKey, JSON.parse(nested(32)));
      expect(deeper.body.error.details.some((d: { issue: string }) => /deeper than/.test(d.issue))).toBe(true);
    });
    it('an array of 100 000 items → 400', async () => {
      const res = await sendMessage(app.sandboxKey, { to: { appUserId: new Array(100_000).fill(0) }, type: 'text', text: 'x' });
      expectInvalid(res, 'to.appUserId');
    });
  });

  describe('__proto__, constructor and prototype', () => {
    it.each([
      ['__proto__', '{"__proto__":{"x":1},"to":{"appUserId":"u_7Hq2LxP9sKd3Vb1Nc5Zr8T"},"type":"text","text":"x"}'],
      ['constructor', '{"constructor":{"x":1},"to":{"appUserId":"u_7Hq2LxP9sKd3Vb1Nc5Zr8T"},"type":"text","text":"x"}'],
      ['prototype', '{"prototype":1,"to":{"appUserId":"u_7Hq2LxP9sKd3Vb1Nc5Zr8T"},"type":"text","text":"x"}'],
      ['to.__proto__', '{"to":{"appUserId":"u_7Hq2LxP9sKd3Vb1Nc5Zr8T","__proto__":{"email":"a@b.c"}},"type":"text","text":"x"}'],
    ])('POST /messages with %s → 400 naming it', async (field, raw) => {
      const res = await http(publicUrl() + '/messages', {
        method: 'POST',
        rawBody: raw,
        headers: { authorization: `Bearer ${app.sandboxKey}`, 'content-type': 'application/json', 'idempotency-key': `proto-${Date.now()}-${Math.random()}` },
      });
      expectInvalid(res, field);
    });
    it('PATCH /business-profile with __proto__ → 400, the profile unchanged', async () => {
      const res = await http(publicUrl() + '/business-profile', {
        method: 'PATCH',
        rawBody: '{"__proto__":{"displayName":"Polluted"}}',
        headers: { authorization: `Bearer ${app.sandboxKey}`, 'content-type': 'application/json' },
      });
      expectInvalid(res, '__proto__');
    });
  });
});
