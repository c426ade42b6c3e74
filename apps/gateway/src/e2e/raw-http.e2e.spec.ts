import { adminUrl, createTestApp, publicUrl, rawRequest, type RawAnswer, type TestApp } from '#platform/testing';

/**
 * Issue 32, "The envelope everywhere": what Node's HTTP parser refuses, CONNECT and upgrades, clients
 * that stall, and the 413 under Connection: close, over raw sockets (no client library tidies them).
 */
const base = () => new URL(publicUrl());
const host = () => `Host: ${base().host}\r\n`;
const path = (p: string) => base().pathname + p;

function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expect(answer.headers['svc-request-id']).toMatch(/^req_[0-9A-Za-z]{24}$/);
  expect(answer.body.error.requestId).toBe(answer.headers['svc-request-id']);
  expect(answer.headers['svc-version']).toBe('2026-10-01');
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
}

describe('raw HTTP at the gateway (e2e)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });

  describe("the parser's refusals carry the envelope", () => {
    it.each([
      ['an unknown method', () => `FOO ${path('/ping')} HTTP/1.1\r\n${host()}\r\n`, 400, 'invalid_request'],
      ['a lowercase method', () => `get ${path('/ping')} HTTP/1.1\r\n${host()}\r\n`, 400, 'invalid_request'],
      ['a control character in a header value', () => `GET ${path('/ping')} HTTP/1.1\r\n${host()}X-Note: a\x01b\r\n\r\n`, 400, 'invalid_request'],
      [
        'Transfer-Encoding with Content-Length',
        () => `POST ${path('/messages')} HTTP/1.1\r\n${host()}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n`,
        400,
        'invalid_request',
      ],
      ['a negative Content-Length', () => `POST ${path('/messages')} HTTP/1.1\r\n${host()}Content-Length: -1\r\n\r\n`, 400, 'invalid_request'],
      ['headers over 16 KiB', () => `GET ${path('/ping')} HTTP/1.1\r\n${host()}X-Big: ${'a'.repeat(17_000)}\r\n\r\n`, 431, 'headers_too_large'],
      ['a URL over 16 KiB', () => `GET ${path('/ping')}?q=${'a'.repeat(17_000)} HTTP/1.1\r\n${host()}\r\n`, 431, 'headers_too_large'],
    ])('%s', async (_label, request, status, code) => {
      const answer = await rawRequest([request()]);
      expectEnvelope(answer, status, code);
      expect(answer.headers.connection).toBe('close');
    });

    it('the admin port answers them with the envelope too', async () => {
      const admin = new URL(adminUrl());
      const answer = await rawRequest([`get ${admin.pathname}/orgs HTTP/1.1\r\nHost: ${admin.host}\r\n\r\n`], { url: adminUrl() });
      expectEnvelope(answer, 400, 'invalid_request');
    });
  });

  describe('CONNECT and upgrades are answered', () => {
    it('CONNECT → 404 route_not_found, not a silently closed socket', async () => {
      const answer = await rawRequest([`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`]);
      expectEnvelope(answer, 404, 'route_not_found');
    });
    it('Upgrade: websocket is served as a plain request', async () => {
      const answer = await rawRequest(
        [
          `GET ${path('/ping')} HTTP/1.1\r\n${host()}Authorization: Bearer ${app.sandboxKey}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
        ],
        { untilAnswered: true },
      );
      expect(answer.status).toBe(200);
      expect(answer.body.appId).toBe(app.appId);
      expect(answer.headers['svc-version']).toBe('2026-10-01');
    });
  });

  describe('clients that stall', () => {
    it('a body declared and never sent: 408 request_timeout after the body deadline, and the socket is freed', async () => {
      const deadline = Number(process.env.HTTP_BODY_TIMEOUT_MS);
      const answer = await rawRequest(
        [
          `POST ${path('/media')} HTTP/1.1\r\n${host()}Authorization: Bearer ${app.sandboxKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"fileName":`,
        ],
        { waitMs: 30_000 },
      );
      expectEnvelope(answer, 408, 'request_timeout');
      expect(answer.closed).toBe(true);
      expect(answer.ms).toBeGreaterThanOrEqual(deadline - 100);
      expect(answer.ms).toBeLessThan(deadline + 5_000);
    });
    it('headers never finished: 408 after the headers timeout, and the socket is freed', async () => {
      const timeout = Number(process.env.HTTP_HEADERS_TIMEOUT_MS);
      const answer = await rawRequest([`GET ${path('/ping')} HTTP/1.1\r\n${host()}X-Slow: 1\r\n`], { waitMs: 30_000 });
      expectEnvelope(answer, 408, 'request_timeout');
      expect(answer.closed).toBe(true);
      expect(answer.ms).toBeLessThan(timeout + 5_000);
    });
  });

  describe('413 before the socket closes', () => {
    it('1 MiB + 1 with Connection: close, 20 times: the 413 envelope every time', async () => {
      const body = Buffer.alloc(1024 * 1024 + 1, 0x20);
      const answers: RawAnswer[] = [];
      for (let i = 0; i < 20; i++) {
        const head = `POST ${path('/messages')} HTTP/1.1\r\n${host()}Authorization: Bearer ${app.sandboxKey}\r\nIdempotency-Key: big-${i}-${Date.now()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
        answers.push(await rawRequest([head, body]));
      }
      expect(answers.map((a) => `${a.status} ${a.body?.error?.code} ${a.error ?? ''}`)).toEqual(answers.map(() => '413 payload_too_large '));
      for (const answer of answers) expectEnvelope(answer, 413, 'payload_too_large');
    });
  });
});
