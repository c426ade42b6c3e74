import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * What the stack's ports show beyond the machine (issue 32, transport security): the test stack runs
 * with BIND_HOST unset, as a developer's laptop does, so no port may answer on the machine's other
 * addresses; and no answer of any port names the framework behind it (X-Powered-By).
 */
const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);
// tools/dev/stack.mjs: app → offset from the base port; the gateway's admin port is base + 1, the
// console's internal port (health, readiness, metrics) the one after the console's.
const SERVICE_PORTS: Record<string, number> = {
  'console internal': BASE_PORT + 3,
  messaging: BASE_PORT + 10,
  consent: BASE_PORT + 20,
  media: BASE_PORT + 30,
  profile: BASE_PORT + 40,
  'webhook-dispatcher': BASE_PORT + 50,
  'chat-sim': BASE_PORT + 60,
};
const ALL_PORTS: Record<string, number> = { 'gateway public': BASE_PORT, 'gateway admin': BASE_PORT + 1, console: BASE_PORT + 2, ...SERVICE_PORTS };

/** The machine's own IPv4 addresses other than loopback (none on a machine without a network). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry && !entry.internal && entry.family === 'IPv4')
    .map((entry) => entry!.address);
}

/** 'open' when a TCP connection is accepted, else the error code (ECONNREFUSED when nothing listens there). */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('open');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
  });
}

describe('ports of the stack', () => {
  const addresses = externalAddresses();

  it('answer on loopback', async () => {
    for (const [name, port] of Object.entries(ALL_PORTS)) expect([name, await tryConnect('127.0.0.1', port)]).toEqual([name, 'open']);
  });

  (addresses.length > 0 ? it : it.skip)(
    `do not answer on the machine's other addresses (${addresses.join(', ') || 'none: skipped'}) with BIND_HOST unset`,
    async () => {
      for (const address of addresses) {
        for (const [name, port] of Object.entries(ALL_PORTS)) expect([name, address, await tryConnect(address, port)]).toEqual([name, address, 'ECONNREFUSED']);
      }
    },
  );
  if (addresses.length === 0) process.stdout.write('port-exposure: this machine has no non-loopback IPv4 address; the exposure check is skipped\n');

  it('never name their framework in X-Powered-By', async () => {
    const urls = [
      `http://127.0.0.1:${BASE_PORT}/platform/v1/openapi.json`,
      `http://127.0.0.1:${BASE_PORT}/platform/v1/no-such-route`,
      `http://127.0.0.1:${BASE_PORT + 1}/healthz`,
      `http://127.0.0.1:${BASE_PORT + 1}/metrics`,
      `http://127.0.0.1:${BASE_PORT + 1}/admin/v1/apps`,
      `http://127.0.0.1:${BASE_PORT + 1}/no-such-route`,
      `http://127.0.0.1:${BASE_PORT + 2}/`,
      `http://127.0.0.1:${BASE_PORT + 2}/no-such-route`,
      ...Object.values(SERVICE_PORTS).flatMap((port) => [
        `http://127.0.0.1:${port}/healthz`,
        `http://127.0.0.1:${port}/metrics`,
        `http://127.0.0.1:${port}/no-such-route`,
      ]),
    ];
    for (const url of urls) {
      const res = await fetch(url);
      await res.arrayBuffer();
      expect([url, res.headers.get('x-powered-by')]).toEqual([url, null]);
    }
  });
});
