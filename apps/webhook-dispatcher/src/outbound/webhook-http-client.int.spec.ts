/**
 * WebhookHttpClient against a real HTTPS receiver on 127.0.0.1 with a local CA: what arrives (bytes,
 * headers, Host, SNI), connection reuse, the deadline, redirects, TLS failures and the handshake.
 * The names used (*.local.test, hooks.example.com) never resolve, so every success also shows the
 * client connected to the given address without a DNS lookup.
 */
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import Stripe from 'stripe';
import { HttpsReceiver, testCertificates, type TestCertificates } from '#platform/testing';
import { signatureHeader } from '../signing/webhook-signature';
import { WebhookHttpClient, type AttemptOutcome, type DeliveryTarget } from './webhook-http-client';

const CERT_DIR = path.resolve(__dirname, '../../../../.data/test-certs');
const HOST = 'hooks.local.test';
const URL_BASE = `https://${HOST}`;

let certs: TestCertificates;
let receiver: HttpsReceiver;
let client: WebhookHttpClient;
let target: DeliveryTarget;

beforeAll(async () => {
  certs = testCertificates(CERT_DIR);
  receiver = await HttpsReceiver.start({ port: 0, certPem: certs.certPem, keyPem: certs.keyPem });
  client = new WebhookHttpClient({ extraCaPem: certs.caPem });
  target = { hostname: HOST, address: '127.0.0.1', port: receiver.port };
});

afterEach(() => receiver.clear());

afterAll(async () => {
  await client?.close();
  await receiver?.close();
});

function post(overrides: Partial<Parameters<WebhookHttpClient['post']>[0]> = {}, via = client): Promise<AttemptOutcome> {
  return via.post({ target, url: `${URL_BASE}/hooks`, headers: {}, body: Buffer.from('{"ok":true}'), ...overrides });
}

/** A port nothing listens on: bound, read, released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('post', () => {
  it('delivers the body bytes and headers exactly, with Host and SNI the hostname while connecting to the address', async () => {
    const body = Buffer.from(JSON.stringify({ id: 'evt_1', text: 'héllo 👋 \u2028 "quoted"', n: 1.5 }) + '\n', 'utf8');
    const t = Math.floor(Date.now() / 1000);
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
    const headers = {
      'Svc-Signature': signatureHeader([secret], t, body),
      'Svc-Event-Id': 'evt_1',
      'Svc-Event-Type': 'message.received',
      'Svc-Delivery-Id': 'wd_1',
      'Svc-Delivery-Attempt': '3',
    };

    const outcome = await post({ url: `${URL_BASE}/in/hooks?tenant=a%20b&x=1`, headers, body });

    expect(outcome).toMatchObject({ kind: 'response', status: 200, responseExcerpt: '' });
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/in/hooks?tenant=a%20b&x=1');
    expect(req.rawBody.equals(body)).toBe(true);
    expect(req.headers).toMatchObject({
      host: HOST,
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'Svc-Webhooks/1.0',
      'svc-signature': headers['Svc-Signature'],
      'svc-event-id': 'evt_1',
      'svc-event-type': 'message.received',
      'svc-delivery-id': 'wd_1',
      'svc-delivery-attempt': '3',
    });
    expect(req.servername).toBe(HOST);
    // The log's copy of the headers is exactly what arrived: every header, none more, same values.
    if (outcome.kind !== 'response') throw new Error('expected a response');
    const logged = Object.fromEntries(outcome.requestHeaders.map((h) => [h.name.toLowerCase(), h.value]));
    expect(logged).toEqual(req.headers);
    // What a receiver written for Stripe's scheme does with what arrived.
    const event = new Stripe('sk_test_not_used').webhooks.constructEvent(req.rawBody, req.headers['svc-signature'], secret);
    expect(event).toMatchObject({ id: 'evt_1' });
  });

  it("lets the caller's headers replace the defaults case-insensitively, but never Host or Content-Length", async () => {
    await post({ headers: { 'content-type': 'application/json; charset=utf-8', host: 'evil.example', 'Content-Length': '1' } });
    expect(receiver.requests[0].headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', host: HOST, 'content-length': '11' });
    expect(receiver.requests[0].rawBody.toString()).toBe('{"ok":true}');
  });

  it('reuses a handful of TLS connections for 200 sequential and 50 concurrent posts', async () => {
    for (let i = 0; i < 200; i++) expect(await post({ body: Buffer.from(`{"seq":${i}}`) })).toMatchObject({ kind: 'response', status: 200 });
    const afterSequential = receiver.tlsConnections;
    const concurrent = await Promise.all(Array.from({ length: 50 }, (_, i) => post({ body: Buffer.from(`{"par":${i}}`) })));
    expect(concurrent.every((o) => o.kind === 'response' && o.status === 200)).toBe(true);
    expect(receiver.requests).toHaveLength(250);
    expect(afterSequential).toBeLessThanOrEqual(1);
    expect(receiver.tlsConnections).toBeLessThanOrEqual(10);
    expect(new Set(receiver.requests.map((r) => r.connectionId)).size).toBeLessThanOrEqual(11);
  });

  it('never carries one hostname over a connection opened for another at the same address and port', async () => {
    const other: DeliveryTarget = { ...target, hostname: 'other.local.test' };
    for (let i = 0; i < 3; i++) {
      await post();
      await post({ target: other, url: 'https://other.local.test/hooks' });
    }
    const byHost = (host: string) => receiver.requests.filter((r) => r.headers.host === host);
    expect(byHost(HOST)).toHaveLength(3);
    expect(byHost('other.local.test')).toHaveLength(3);
    for (const r of receiver.requests) expect(r.servername).toBe(r.headers.host);
    const ids = (host: string) => new Set(byHost(host).map((r) => r.connectionId));
    expect([...ids(HOST)].filter((id) => ids('other.local.test').has(id))).toEqual([]);
  });

  it('gives timeout when the receiver answers later than timeoutMs', async () => {
    receiver.respond(() => ({ status: 200, delayMs: 5_000 }));
    const outcome = await post({ timeoutMs: 300 });
    expect(outcome.kind).toBe('timeout');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(2_000);
    expect(receiver.requests).toHaveLength(1);
  });

  it('gives timeout when the status came but the body is still streaming at the deadline', async () => {
    receiver.respond(() => ({ status: 200, body: 'late', bodyDelayMs: 5_000 }));
    expect(await post({ timeoutMs: 300 })).toMatchObject({ kind: 'timeout' });
  });

  it('is unaffected by a timed-out attempt before it', async () => {
    receiver.respond(() => ({ status: 200, delayMs: 5_000 }));
    await post({ timeoutMs: 200 });
    receiver.respond(() => ({ status: 204 }));
    expect(await post()).toMatchObject({ kind: 'response', status: 204 });
  });

  it('waits for a slow answer within the limit (longer than idle connections are kept)', async () => {
    receiver.respond(() => ({ status: 200, body: 'slow but fine', delayMs: 4_500 }));
    expect(await post()).toMatchObject({ kind: 'response', status: 200, responseExcerpt: 'slow but fine' });
  });

  it('does not follow a redirect: a 302 is the answer, and only one request is made', async () => {
    receiver.respond((req) => (req.path === '/hooks' ? { status: 302, headers: { location: `${URL_BASE}/moved` } } : { status: 200 }));
    expect(await post()).toMatchObject({ kind: 'response', status: 302 });
    expect(receiver.requests.map((r) => r.path)).toEqual(['/hooks']);
  });

  it.each([500, 429, 408, 404])('returns a %i as a response with the start of its body', async (status) => {
    receiver.respond(() => ({ status, body: `nope ${status}` }));
    expect(await post()).toMatchObject({ kind: 'response', status, responseExcerpt: `nope ${status}` });
  });

  it('keeps the first 2 KiB of the body, leaving out a character the limit cuts', async () => {
    receiver.respond(() => ({ status: 200, body: 'é'.repeat(3000) }));
    expect(await post()).toMatchObject({ kind: 'response', status: 200, responseExcerpt: 'é'.repeat(1024) });
    receiver.respond(() => ({ status: 200, body: `x${'é'.repeat(3000)}` }));
    expect(await post()).toMatchObject({ kind: 'response', status: 200, responseExcerpt: `x${'é'.repeat(1023)}` });
  });

  it('stops reading a body at 64 KiB and drops that connection; a shorter body keeps it', async () => {
    const fresh = new WebhookHttpClient({ extraCaPem: certs.caPem });
    try {
      // New TLS connections a fresh client needed for these answers, in order.
      const sizes = async (...list: number[]) => {
        receiver.clear();
        receiver.respond((req) => ({ status: 200, body: 'x'.repeat(Number(req.query.get('size'))) }));
        for (const size of list) expect(await post({ url: `${URL_BASE}/hooks?size=${size}` }, fresh)).toMatchObject({ kind: 'response', status: 200 });
        return receiver.tlsConnections;
      };
      expect(await sizes(0, 60 * 1024, 0)).toBe(1);
      expect(await sizes(0, 1024 * 1024, 0)).toBe(1); // the first reuses the connection above, the last needs a new one
    } finally {
      await fresh.close();
    }
  });

  describe('against a receiver that drops connections', () => {
    let rude: https.Server;
    let rudeTarget: DeliveryTarget;
    let seen: string[];

    beforeAll(async () => {
      // The second request on a connection is dropped unanswered; /cut answers half a body and hangs up.
      const served = new WeakMap<object, number>();
      rude = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
        seen.push(req.url ?? '');
        const count = (served.get(req.socket) ?? 0) + 1;
        served.set(req.socket, count);
        if (req.url === '/cut') {
          res.writeHead(200, { 'content-length': '100' });
          res.write('partial', () => req.socket.destroy());
        } else if (count === 2) req.socket.destroy();
        else res.end('ok');
      });
      await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
      rudeTarget = { ...target, port: (rude.address() as net.AddressInfo).port };
    });
    beforeEach(() => (seen = []));
    afterAll(async () => {
      const closed = new Promise((resolve) => rude.close(resolve));
      rude.closeAllConnections();
      await closed;
    });

    it('sends once more when a reused connection is dropped before any answer', async () => {
      const fresh = new WebhookHttpClient({ extraCaPem: certs.caPem });
      try {
        expect(await post({ target: rudeTarget, url: `${URL_BASE}/one` }, fresh)).toMatchObject({ kind: 'response', status: 200 });
        expect(await post({ target: rudeTarget, url: `${URL_BASE}/two` }, fresh)).toMatchObject({ kind: 'response', status: 200, responseExcerpt: 'ok' });
        expect(seen).toEqual(['/one', '/two', '/two']);
      } finally {
        await fresh.close();
      }
    });

    it('gives network when the connection closes in the middle of the body', async () => {
      const outcome = await post({ target: rudeTarget, url: `${URL_BASE}/cut` });
      expect(outcome).toMatchObject({ kind: 'network', error: 'connection closed before the response (200) was complete' });
    });
  });

  it('gives network for a refused connection', async () => {
    const outcome = await post({ target: { ...target, port: await closedPort() } });
    expect(outcome).toMatchObject({ kind: 'network', error: expect.stringMatching(/^connection refused by 127\.0\.0\.1:\d+$/) });
  });

  it('fails TLS without the local CA (default roots only)', async () => {
    const plain = new WebhookHttpClient();
    try {
      const outcome = await post({}, plain);
      expect(outcome).toMatchObject({ kind: 'network', error: expect.stringMatching(/^TLS: certificate .*not signed by a trusted authority/) });
    } finally {
      await plain.close();
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('fails TLS for a hostname the certificate does not name', async () => {
    const outcome = await post({ target: { ...target, hostname: 'hooks.example.com' }, url: 'https://hooks.example.com/hooks' });
    expect(outcome).toMatchObject({ kind: 'network', error: 'TLS: certificate is not valid for hooks.example.com' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses, without sending, a URL that is not https or names another host, and an address that is not an IP', async () => {
    expect(await post({ url: 'http://hooks.local.test/hooks' })).toMatchObject({ kind: 'network', error: 'the endpoint URL is not https' });
    expect(await post({ url: 'https://elsewhere.local.test/hooks' })).toMatchObject({ kind: 'network', error: expect.stringContaining('is not the target') });
    expect(await post({ target: { ...target, address: 'localhost' } })).toMatchObject({ kind: 'network', error: expect.stringContaining('not an IP address') });
    expect(receiver.requests).toHaveLength(0);
  });

  it('turns a header value Node refuses into an outcome instead of throwing', async () => {
    expect(await post({ headers: { 'Svc-Event-Id': 'evt_1\r\nX-Injected: 1' } })).toMatchObject({
      kind: 'network',
      error: expect.stringMatching(/^invalid request header/),
    });
  });

  it('answers network after close, without throwing', async () => {
    const closing = new WebhookHttpClient({ extraCaPem: certs.caPem });
    expect(await post({}, closing)).toMatchObject({ kind: 'response', status: 200 });
    await closing.close();
    expect(await post({}, closing)).toMatchObject({ kind: 'network', error: 'the HTTP client is closed' });
  });
});

describe('handshake', () => {
  const verifyToken = 'my verify+token/ä';
  const challenge = 'ch_4f9a 1+2=3&x';

  it('succeeds when the receiver echoes the challenge; token and challenge arrive as query params after the URL’s own', async () => {
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks?tenant=a%20b`, verifyToken, challenge })).toEqual({ ok: true });
    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req.method).toBe('GET');
    expect(req.path).toBe('/hooks');
    expect(req.url.startsWith('/hooks?tenant=a%20b&')).toBe(true);
    expect([...req.query.entries()]).toEqual([
      ['tenant', 'a b'],
      ['svc.mode', 'subscribe'],
      ['svc.verify_token', verifyToken],
      ['svc.challenge', challenge],
    ]);
    expect(req.headers.host).toBe(HOST);
    expect(req.servername).toBe(HOST);
  });

  it('forgives one trailing line break and nothing else', async () => {
    receiver.respond((req) => ({ status: 200, body: `${req.query.get('svc.challenge')}\n` }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({ ok: true });
    receiver.respond((req) => ({ status: 200, body: ` ${req.query.get('svc.challenge')}` }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({
      ok: false,
      error: 'body did not equal the challenge',
    });
  });

  it('fails on a wrong body', async () => {
    receiver.respond(() => ({ status: 200, body: JSON.stringify({ challenge }) }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({
      ok: false,
      error: 'body did not equal the challenge',
    });
  });

  it('fails on 404, and on any 2xx other than 200', async () => {
    receiver.respond(() => ({ status: 404 }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({ ok: false, error: 'answered 404' });
    receiver.respond((req) => ({ status: 201, body: req.query.get('svc.challenge') ?? '' }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({ ok: false, error: 'answered 201' });
  });

  it('does not follow a redirect', async () => {
    receiver.respond(() => ({ status: 302, headers: { location: `${URL_BASE}/elsewhere` } }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge })).toEqual({
      ok: false,
      error: 'redirects are not followed (302)',
    });
    expect(receiver.requests).toHaveLength(1);
  });

  it('fails when the answer is slower than the limit', async () => {
    receiver.respond((req) => ({ status: 200, body: req.query.get('svc.challenge') ?? '', delayMs: 5_000 }));
    expect(await client.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge, timeoutMs: 300 })).toEqual({
      ok: false,
      error: 'timed out after 0.3 s',
    });
  });

  it('reports TLS and connection failures as short reasons', async () => {
    const plain = new WebhookHttpClient();
    try {
      const untrusted = await plain.handshake({ target, url: `${URL_BASE}/hooks`, verifyToken, challenge });
      expect(untrusted).toEqual({ ok: false, error: expect.stringMatching(/^TLS: certificate /) });
    } finally {
      await plain.close();
    }
    const refused = await client.handshake({ target: { ...target, port: await closedPort() }, url: `${URL_BASE}/hooks`, verifyToken, challenge });
    expect(refused).toEqual({ ok: false, error: expect.stringMatching(/^connection refused/) });
  });
});
