import { createServer, isIP, type Server } from 'node:net';
import { api, createTestApp, expectStatus, FakeDnsServer, type TestApp } from '#platform/testing';
import { HOSTILE_URL_CASES } from '../url-safety/hostile-urls.fixture';

const DNS_PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 80;
/** Cases whose DNS answers can travel as real DNS records (one unit case answers with a non-address). */
const CASES = HOSTILE_URL_CASES.filter((c) => Object.values(c.dns ?? {}).every((answer) => !Array.isArray(answer) || answer.every((a) => isIP(a) !== 0)));

/** A TCP listener that only counts connections: no hostile URL may ever reach it. */
async function countingListener(host: string, port: number): Promise<{ server: Server; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return { server, connections: () => count };
}

let dns: FakeDnsServer;
let listeners: { server: Server; connections: () => number }[] = [];
let app: TestApp;

beforeAll(async () => {
  dns = await FakeDnsServer.start({ port: DNS_PORT, host: '127.0.0.1' });
  // Where loopback and unspecified-address URLs would land: https on 443, over IPv4 and IPv6.
  listeners = [await countingListener('127.0.0.1', 443), await countingListener('::1', 443)];
  app = await createTestApp();
});
afterAll(async () => {
  await dns?.close();
  for (const { server } of listeners) await new Promise((resolve) => server.close(resolve));
});

describe('webhook URL rules and SSRF defence at registration (e2e, real DNS over UDP)', () => {
  it(`runs ${CASES.length} hostile URLs and DNS answers through POST /webhooks`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s is refused with its code', async (_name, c) => {
    dns.clear();
    for (const [name, answer] of Object.entries(c.dns ?? {})) dns.answer(name, answer);
    const res = await api('POST', '/webhooks', app.sandboxKey, { url: c.url, verifyToken: 'a-long-enough-token', events: ['message.status'] });
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 422, code: c.code });
    expect(res.body.error.type).toBe('invalid_request_error');
  });

  it('no hostile URL reached a local listener, and nothing was registered', async () => {
    expect(listeners.map((l) => l.connections())).toEqual([0, 0]);
    expect(expectStatus(await api('GET', '/webhooks', app.sandboxKey), 200).body).toEqual({ data: [] });
  });
});
