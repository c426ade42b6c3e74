import type { HostResolver } from './host-resolver';
import { ALLOWED_URL_CASES, HOSTILE_URL_CASES, type FakeDnsAnswer } from './hostile-urls.fixture';
import { URL_REFUSAL_CODES, UrlSafety } from './url-safety';

/** DNS as a table: names not in it do not exist. Records every name asked for. */
class TableResolver implements HostResolver {
  readonly lookups: string[] = [];

  constructor(public table: Record<string, FakeDnsAnswer> = {}) {}

  async resolve(hostname: string): Promise<string[]> {
    this.lookups.push(hostname);
    const key = hostname.toLowerCase().replace(/\.$/, '');
    const answer = Object.entries(this.table).find(([name]) => name.toLowerCase() === key)?.[1];
    if (answer === undefined || answer === 'nxdomain') return [];
    if (answer === 'servfail') throw Object.assign(new Error(`queryA ESERVFAIL ${hostname}`), { code: 'ESERVFAIL' });
    return answer;
  }
}

const PIN = { address: '127.0.0.1', port: 8443 };

describe('UrlSafety', () => {
  describe('the hostile URL table', () => {
    it('is large, named uniquely and uses every refusal code', () => {
      expect(HOSTILE_URL_CASES.length).toBeGreaterThanOrEqual(45);
      expect(new Set(HOSTILE_URL_CASES.map((c) => c.name)).size).toBe(HOSTILE_URL_CASES.length);
      expect(new Set(HOSTILE_URL_CASES.map((c) => c.code))).toEqual(new Set(URL_REFUSAL_CODES));
    });

    it.each(HOSTILE_URL_CASES)('refuses $name with $code', async ({ url, dns, code }) => {
      const resolver = new TableResolver(dns);
      const result = await new UrlSafety({ resolver }).check(url);
      expect(result).toEqual({ ok: false, code, message: expect.any(String) });
      if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
      // Refused by rule means refused before DNS: nothing about the name leaks to a resolver.
      expect(resolver.lookups).toHaveLength(dns ? 1 : 0);
    });

    it.each(ALLOWED_URL_CASES)('allows $name', async ({ url, dns, address, normalised }) => {
      const resolver = new TableResolver(dns);
      const result = await new UrlSafety({ resolver }).check(url);
      const hostname = new URL(url).hostname.replace(/\.$/, '');
      expect(result).toEqual({ ok: true, target: { url: normalised ?? url, hostname, address, port: 443, pinned: false } });
      expect(resolver.lookups).toEqual([hostname]);
    });
  });

  describe('messages say what was wrong', () => {
    const check = (url: string, table: Record<string, FakeDnsAnswer> = {}) => new UrlSafety({ resolver: new TableResolver(table) }).check(url);

    it.each<[string, Record<string, FakeDnsAnswer>, string]>([
      [
        'https://hooks.example.com/webhooks',
        { 'hooks.example.com': ['93.184.215.14', '10.0.0.5'] },
        'hooks.example.com resolves to an address that is not public',
      ],
      [
        'https://hooks.example.com/webhooks',
        { 'hooks.example.com': ['::ffff:169.254.169.254'] },
        'hooks.example.com resolves to an address that is not public',
      ],
      ['https://0x7f.1/', {}, '127.0.0.1 is not a public address (loopback)'],
      ['https://[fd00:ec2::254]/', {}, 'fd00:ec2::254 is not a public address (cloud metadata)'],
      ['https://93.184.215.14/', {}, '93.184.215.14 is an IP address; use a fully qualified DNS name'],
      ['https://intranet/', {}, 'intranet is not a fully qualified domain name'],
      ['https://metadata.google.internal/', {}, 'metadata.google.internal is under .internal, which is not on the public Internet'],
      ['https://gone.example.com/', { 'gone.example.com': 'nxdomain' }, 'gone.example.com has no A or AAAA record'],
      ['https://broken.example.com/', { 'broken.example.com': 'servfail' }, 'broken.example.com cannot be resolved right now (ESERVFAIL)'],
      ['http://hooks.example.com/', {}, 'The URL must use https, not http'],
      ['https://hooks.example.com:8443/', {}, 'The URL must use port 443, not 8443'],
      ['not a url', {}, '"not a url" is not a valid absolute URL'],
    ])('%s', async (url, table, message) => {
      expect(await check(url, table)).toMatchObject({ ok: false, message });
    });

    it('never repeats the address a name resolved to (a split-horizon DNS oracle)', async () => {
      const result = await check('https://hooks.example.com/', { 'hooks.example.com': ['10.20.30.40'] });
      expect(result.ok).toBe(false);
      expect(JSON.stringify(result)).not.toMatch(/10\.20\.30\.40|private/);
    });

    it('keeps hostile input short in messages', async () => {
      const result = await check(`x${'a'.repeat(1000)}`);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.message.length).toBeLessThan(120);
    });
  });

  it('refuses what is not a string', async () => {
    const check = new UrlSafety({ resolver: new TableResolver() }).check(42 as unknown as string);
    expect(await check).toMatchObject({ ok: false, code: 'webhook_url_invalid_url' });
  });

  it('treats any resolver failure as a DNS failure', async () => {
    const resolver: HostResolver = { resolve: () => Promise.reject(new Error('socket hang up')) };
    expect(await new UrlSafety({ resolver }).check('https://hooks.acme-corp.com/')).toEqual({
      ok: false,
      code: 'webhook_url_dns_failed',
      message: 'hooks.acme-corp.com cannot be resolved right now (DNS error)',
    });
  });

  it.each(['https://localhost/', 'https://metadata.google.internal/', 'https://intranet/', 'https://hooks.local/'])(
    'refuses %s by name even when DNS would call it public',
    async (url) => {
      const host = new URL(url).hostname;
      const resolver = new TableResolver({ [host]: ['93.184.215.14'] });
      expect(await new UrlSafety({ resolver }).check(url)).toMatchObject({ ok: false, code: 'webhook_url_blocked_host' });
      expect(resolver.lookups).toEqual([]);
    },
  );

  it('checks afresh every time, so a name rebound to loopback is refused on the next check', async () => {
    const resolver = new TableResolver({ 'hooks.acme-corp.com': ['93.184.215.14'] });
    const safety = new UrlSafety({ resolver });
    expect(await safety.check('https://hooks.acme-corp.com/')).toMatchObject({ ok: true, target: { address: '93.184.215.14' } });
    resolver.table = { 'hooks.acme-corp.com': ['127.0.0.1'] };
    expect(await safety.check('https://hooks.acme-corp.com/')).toMatchObject({ ok: false, code: 'webhook_url_blocked_address' });
  });

  describe('pinned dev hosts', () => {
    const pinned = () => {
      const resolver = new TableResolver({ 'hooks.local.test': ['10.0.0.1'], 'other.local.test': ['93.184.215.14'] });
      return { resolver, safety: new UrlSafety({ resolver, devHosts: new Map([['hooks.local.test', PIN]]) }) };
    };

    it.each(['https://hooks.local.test/webhooks?x=1', 'https://HOOKS.Local.Test./webhooks?x=1', 'https://hooks.local.test:443/webhooks?x=1'])(
      'answer %s with the pin, without DNS',
      async (url) => {
        const { resolver, safety } = pinned();
        const result = await safety.check(url);
        expect(result).toEqual({ ok: true, target: { url: new URL(url).href, hostname: 'hooks.local.test', address: '127.0.0.1', port: 8443, pinned: true } });
        expect(resolver.lookups).toEqual([]);
      },
    );

    it.each([
      ['http://hooks.local.test/webhooks', 'webhook_url_https_required'],
      ['https://hooks.local.test:8443/webhooks', 'webhook_url_port_not_allowed'],
      ['https://user@hooks.local.test/webhooks', 'webhook_url_invalid_url'],
      ['https://127.0.0.1/webhooks', 'webhook_url_blocked_address'],
      ['https://other.local.test/webhooks', 'webhook_url_blocked_host'],
      ['https://sub.hooks.local.test/webhooks', 'webhook_url_blocked_host'],
    ])('still refuse %s', async (url, code) => {
      const { resolver, safety } = pinned();
      expect(await safety.check(url)).toMatchObject({ ok: false, code });
      expect(resolver.lookups).toEqual([]);
    });
  });
});
