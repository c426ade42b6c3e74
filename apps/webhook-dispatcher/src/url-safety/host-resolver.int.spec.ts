import { createSocket, type Socket } from 'node:dgram';
import { FakeDnsServer } from '#platform/testing';
import { dnsHostResolver } from './host-resolver';
import { ALLOWED_URL_CASES, HOSTILE_URL_CASES } from './hostile-urls.fixture';
import { UrlSafety } from './url-safety';

// The real resolver (c-ares over UDP) against a DNS server whose answers the test controls.

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:1a6f';

/** A UDP port with nobody on it: bound to learn a free port, then closed. */
async function deadPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

describe('dnsHostResolver', () => {
  let dns: FakeDnsServer;
  beforeAll(async () => {
    dns = await FakeDnsServer.start({ port: 0 });
  });
  afterAll(() => dns.close());
  beforeEach(() => dns.clear());

  const resolver = () => dnsHostResolver({ servers: [dns.address], timeoutMs: 500 });

  it('returns the A records of an IPv4-only name', async () => {
    dns.answer('v4.acme-corp.com', [PUBLIC_V4, '1.1.1.1']);
    expect(await resolver().resolve('v4.acme-corp.com')).toEqual([PUBLIC_V4, '1.1.1.1']);
  });

  it('returns the AAAA records of an IPv6-only name', async () => {
    dns.answer('v6.acme-corp.com', [PUBLIC_V6]);
    expect(await resolver().resolve('v6.acme-corp.com')).toEqual([PUBLIC_V6]);
  });

  it('returns both families, asking for both', async () => {
    dns.answer('dual.acme-corp.com', [PUBLIC_V6, PUBLIC_V4]);
    expect(await resolver().resolve('dual.acme-corp.com')).toEqual([PUBLIC_V4, PUBLIC_V6]);
    expect(dns.queries).toEqual(
      expect.arrayContaining([
        { name: 'dual.acme-corp.com', type: 'A' },
        { name: 'dual.acme-corp.com', type: 'AAAA' },
      ]),
    );
  });

  it('answers IPv4-mapped and other IPv6 spellings as DNS carries them', async () => {
    dns.answer('mapped.attacker.example.com', ['::ffff:127.0.0.1']);
    expect(await resolver().resolve('mapped.attacker.example.com')).toEqual(['::ffff:127.0.0.1']);
  });

  it('ignores case and one trailing dot', async () => {
    dns.answer('Hooks.Acme-Corp.com.', [PUBLIC_V4]);
    expect(await resolver().resolve('hooks.acme-corp.com.')).toEqual([PUBLIC_V4]);
    expect(await resolver().resolve('HOOKS.acme-corp.COM')).toEqual([PUBLIC_V4]);
  });

  it('returns [] for NXDOMAIN and for a name without addresses', async () => {
    dns.answer('gone.acme-corp.com', 'nxdomain').answer('mail-only.acme-corp.com', []);
    expect(await resolver().resolve('gone.acme-corp.com')).toEqual([]);
    expect(await resolver().resolve('never-heard-of.acme-corp.com')).toEqual([]);
    expect(await resolver().resolve('mail-only.acme-corp.com')).toEqual([]);
  });

  it('asks the DNS server even for names /etc/hosts knows, and appends no search domain', async () => {
    expect(await resolver().resolve('localhost')).toEqual([]);
    expect(await resolver().resolve('intranet')).toEqual([]);
    expect(new Set(dns.queries.map((query) => query.name))).toEqual(new Set(['localhost', 'intranet']));
  });

  it('throws on SERVFAIL', async () => {
    dns.answer('broken.acme-corp.com', 'servfail');
    await expect(resolver().resolve('broken.acme-corp.com')).rejects.toMatchObject({ code: 'ESERVFAIL' });
  });

  it('throws, quickly, when no DNS server listens', async () => {
    const started = Date.now();
    await expect(dnsHostResolver({ servers: [`127.0.0.1:${await deadPort()}`], timeoutMs: 500 }).resolve('hooks.acme-corp.com')).rejects.toHaveProperty('code');
    expect(Date.now() - started).toBeLessThan(2500);
  });

  describe('with a server that never answers', () => {
    let silent: Socket;
    beforeAll(async () => {
      silent = createSocket('udp4');
      await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise<void>((resolve) => silent.close(() => resolve())));

    it('times out within a couple of seconds', async () => {
      const started = Date.now();
      await expect(dnsHostResolver({ servers: [`127.0.0.1:${silent.address().port}`], timeoutMs: 500 }).resolve('hooks.acme-corp.com')).rejects.toMatchObject({
        code: 'ETIMEOUT',
      });
      expect(Date.now() - started).toBeLessThan(2500);
    });
  });
});

describe('UrlSafety with the real resolver', () => {
  let dns: FakeDnsServer;
  let safety: UrlSafety;
  beforeAll(async () => {
    dns = await FakeDnsServer.start({ port: 0 });
    safety = new UrlSafety({ resolver: dnsHostResolver({ servers: [dns.address], timeoutMs: 500 }) });
  });
  afterAll(() => dns.close());
  beforeEach(() => dns.clear());

  it('refuses a name whose answer changed from public to 127.0.0.1 since the last check', async () => {
    dns.answer('rebind.attacker.example.com', [PUBLIC_V4]);
    expect(await safety.check('https://rebind.attacker.example.com/webhooks')).toMatchObject({ ok: true, target: { address: PUBLIC_V4, port: 443 } });
    dns.answer('rebind.attacker.example.com', ['127.0.0.1']);
    expect(await safety.check('https://rebind.attacker.example.com/webhooks')).toEqual({
      ok: false,
      code: 'webhook_url_blocked_address',
      message: 'rebind.attacker.example.com resolves to an address that is not public',
    });
  });

  // Answers that are not addresses cannot travel in A/AAAA records; the unit tests cover them.
  const wireCases = HOSTILE_URL_CASES.filter(
    ({ dns: table }) => !Object.values(table ?? {}).some((answer) => Array.isArray(answer) && answer.includes('not-an-ip')),
  );

  it.each(wireCases)('refuses $name with $code', async ({ url, dns: table, code }) => {
    for (const [name, answer] of Object.entries(table ?? {})) dns.answer(name, answer);
    expect(await safety.check(url)).toMatchObject({ ok: false, code });
    if (!table) expect(dns.queries).toEqual([]);
  });

  it.each(ALLOWED_URL_CASES)('allows $name', async ({ url, dns: table, address }) => {
    for (const [name, answer] of Object.entries(table)) dns.answer(name, answer);
    expect(await safety.check(url)).toMatchObject({ ok: true, target: { address, port: 443, pinned: false } });
  });
});
