import { promises as dns } from 'node:dns';
import { FakeDnsServer } from './fake-dns-server';

describe('FakeDnsServer', () => {
  let server: FakeDnsServer;
  let resolver: dns.Resolver;
  beforeAll(async () => {
    server = await FakeDnsServer.start({ port: 0 });
    resolver = new dns.Resolver({ timeout: 500, tries: 1 });
    resolver.setServers([server.address]);
  });
  afterAll(() => server.close());
  beforeEach(() => server.clear());

  it('answers A and AAAA from the table with TTL 0, each family on its own', async () => {
    server.answer('hooks.acme-corp.com', ['2001:4860:4860::8888', '93.184.215.14', '::ffff:10.0.0.1', '1.1.1.1']);
    expect(await resolver.resolve4('hooks.acme-corp.com', { ttl: true })).toEqual([
      { address: '93.184.215.14', ttl: 0 },
      { address: '1.1.1.1', ttl: 0 },
    ]);
    expect(await resolver.resolve6('hooks.acme-corp.com', { ttl: true })).toEqual([
      { address: '2001:4860:4860::8888', ttl: 0 },
      { address: '::ffff:10.0.0.1', ttl: 0 },
    ]);
    expect(server.queries).toEqual([
      { name: 'hooks.acme-corp.com', type: 'A' },
      { name: 'hooks.acme-corp.com', type: 'AAAA' },
    ]);
  });

  it('says the name exists but has no such record (NOERROR, no answers) for the missing family and other types', async () => {
    server.answer('v4-only.acme-corp.com', ['93.184.215.14']);
    await expect(resolver.resolve6('v4-only.acme-corp.com')).rejects.toMatchObject({ code: dns.NODATA });
    await expect(resolver.resolveMx('v4-only.acme-corp.com')).rejects.toMatchObject({ code: dns.NODATA });
    expect(server.queries.map((query) => query.type)).toEqual(['AAAA', 'TYPE15']);
  });

  it('answers NXDOMAIN for unknown names and names set so, SERVFAIL when set so', async () => {
    server.answer('gone.acme-corp.com', 'nxdomain').answer('broken.acme-corp.com', 'servfail');
    await expect(resolver.resolve4('unknown.acme-corp.com')).rejects.toMatchObject({ code: dns.NOTFOUND });
    await expect(resolver.resolve4('gone.acme-corp.com')).rejects.toMatchObject({ code: dns.NOTFOUND });
    await expect(resolver.resolve4('broken.acme-corp.com')).rejects.toMatchObject({ code: dns.SERVFAIL });
  });

  it('compares names case-insensitively and ignores a trailing dot', async () => {
    server.answer('Hooks.ACME-corp.com.', ['93.184.215.14']);
    expect(await resolver.resolve4('HOOKS.acme-corp.COM.')).toEqual(['93.184.215.14']);
    expect(server.queries).toEqual([{ name: 'hooks.acme-corp.com', type: 'A' }]);
  });

  it('changes its answer as soon as it is told to', async () => {
    server.answer('rebind.acme-corp.com', ['93.184.215.14']);
    expect(await resolver.resolve4('rebind.acme-corp.com')).toEqual(['93.184.215.14']);
    server.answer('rebind.acme-corp.com', ['127.0.0.1']);
    expect(await resolver.resolve4('rebind.acme-corp.com')).toEqual(['127.0.0.1']);
  });

  it('forgets answers and queries on clear()', async () => {
    server.answer('hooks.acme-corp.com', ['93.184.215.14']);
    await resolver.resolve4('hooks.acme-corp.com');
    server.clear();
    expect(server.queries).toEqual([]);
    await expect(resolver.resolve4('hooks.acme-corp.com')).rejects.toMatchObject({ code: dns.NOTFOUND });
  });

  it('refuses to serve what is not an address', () => {
    expect(() => server.answer('x.acme-corp.com', ['localhost'])).toThrow('"localhost" is not an IP address');
  });

  it('listens on IPv6 too', async () => {
    const v6 = await FakeDnsServer.start({ port: 0, host: '::1' }).catch(() => null);
    if (!v6) return; // no IPv6 loopback on this machine
    try {
      v6.answer('hooks.acme-corp.com', ['93.184.215.14']);
      const v6Resolver = new dns.Resolver({ timeout: 500, tries: 1 });
      v6Resolver.setServers([v6.address]);
      expect(v6.address).toBe(`[::1]:${v6.port}`);
      expect(await v6Resolver.resolve4('hooks.acme-corp.com')).toEqual(['93.184.215.14']);
    } finally {
      await v6.close();
    }
  });
});
