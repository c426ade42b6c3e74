import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '#platform/service-kit';
import { parseDevHosts, webhookNetworkConfig } from './dev-hosts';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('parseDevHosts', () => {
  it.each([undefined, '', '  ', ','])('pins nothing for %j', (value) => {
    expect(parseDevHosts(value).size).toBe(0);
  });

  it('pins each host to its address and port, host names lower-cased', () => {
    const pins = parseDevHosts(' Hooks.Local.Test=127.0.0.1:8443 , other.local.test.=[::1]:9443,');
    expect([...pins]).toEqual([
      ['hooks.local.test', { address: '127.0.0.1', port: 8443 }],
      ['other.local.test', { address: '::1', port: 9443 }],
    ]);
  });

  it.each([
    ['hooks.local.test', /expected host=ip:port/],
    ['hooks.local.test=127.0.0.1', /expected host=ip:port/],
    ['hooks.local.test=127.0.0.1:', /expected host=ip:port/],
    ['hooks.local.test=127.0.0.1:0', /expected host=ip:port/],
    ['hooks.local.test=127.0.0.1:65536', /expected host=ip:port/],
    ['hooks.local.test=127.0.0.1:84x3', /expected host=ip:port/],
    ['hooks.local.test=::1:9443', /IPv6 in brackets/],
    ['hooks.local.test=[::1]', /expected host=ip:port/],
    ['hooks.local.test=[127.0.0.1]:8443', /expected host=ip:port/],
    ['hooks.local.test=localhost:8443', /expected host=ip:port/],
    ['=127.0.0.1:8443', /is not a host name/],
    ['127.0.0.1=127.0.0.1:8443', /is not a host name/],
    ['2130706433=127.0.0.1:8443', /is not a host name/],
    ['hooks local=127.0.0.1:8443', /is not a host name/],
    ['bücher.test=127.0.0.1:8443', /is not a host name/],
    ['a..test=127.0.0.1:8443', /is not a host name/],
    ['hooks.local.test=127.0.0.1:8443,HOOKS.local.test=127.0.0.1:9443', /pins hooks.local.test twice/],
  ])('refuses %j', (value, message) => {
    expect(() => parseDevHosts(value)).toThrow(message);
  });
});

describe('webhookNetworkConfig', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'webhook-ca-'));
    writeFileSync(path.join(dir, 'ca.pem'), PEM);
    writeFileSync(path.join(dir, 'not-a-ca.txt'), 'hello');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('switches nothing on by default', () => {
    expect(webhookNetworkConfig({}, false)).toEqual({ devHosts: new Map(), extraCaPem: null, dnsServers: null });
    expect(webhookNetworkConfig({}, true)).toEqual({ devHosts: new Map(), extraCaPem: null, dnsServers: null });
  });

  it('reads all three switches in dev', () => {
    const config = webhookNetworkConfig(
      {
        WEBHOOK_DEV_HOSTS: 'hooks.local.test=127.0.0.1:8443',
        WEBHOOK_CA_FILE: path.join(dir, 'ca.pem'),
        WEBHOOK_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.2 ,[::1]:53,::1,[fd00::53]',
      },
      false,
    );
    expect(config.devHosts.get('hooks.local.test')).toEqual({ address: '127.0.0.1', port: 8443 });
    expect(config.extraCaPem).toBe(PEM);
    expect(config.dnsServers).toEqual(['127.0.0.1:5353', '10.0.0.2', '[::1]:53', '::1', 'fd00::53']);
  });

  it.each([
    [{ WEBHOOK_DEV_HOSTS: 'hooks.local.test=127.0.0.1:8443' }, 'WEBHOOK_DEV_HOSTS is for dev and tests only; refusing to start in production'],
    [{ WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }, 'WEBHOOK_CA_FILE is for dev and tests only; refusing to start in production'],
    [{ WEBHOOK_DNS_SERVERS: '127.0.0.1:5353' }, 'WEBHOOK_DNS_SERVERS is for dev and tests only; refusing to start in production'],
    [
      { WEBHOOK_DEV_HOSTS: 'x', WEBHOOK_DNS_SERVERS: 'y' },
      'WEBHOOK_DEV_HOSTS, WEBHOOK_DNS_SERVERS are for dev and tests only; refusing to start in production',
    ],
  ])('refuses to start in production with %j', (env, message) => {
    const start = () => webhookNetworkConfig(env, true);
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(message);
  });

  it('treats empty values as unset, also in production', () => {
    expect(webhookNetworkConfig({ WEBHOOK_DEV_HOSTS: '', WEBHOOK_CA_FILE: ' ', WEBHOOK_DNS_SERVERS: '' }, true).extraCaPem).toBeNull();
  });

  it.each([
    [{ WEBHOOK_CA_FILE: '/nonexistent/ca.pem' }, 'WEBHOOK_CA_FILE=/nonexistent/ca.pem cannot be read (ENOENT)'],
    [{ WEBHOOK_DEV_HOSTS: 'hooks.local.test=127.0.0.1' }, 'WEBHOOK_DEV_HOSTS entry "hooks.local.test=127.0.0.1": expected host=ip:port'],
    [{ WEBHOOK_DNS_SERVERS: 'dns.example.com' }, 'WEBHOOK_DNS_SERVERS entry "dns.example.com": expected ip[:port]'],
    [{ WEBHOOK_DNS_SERVERS: '::1:53:x' }, 'WEBHOOK_DNS_SERVERS entry "::1:53:x"'],
    [{ WEBHOOK_DNS_SERVERS: '127.0.0.1:99999' }, 'WEBHOOK_DNS_SERVERS entry "127.0.0.1:99999"'],
    [{ WEBHOOK_DNS_SERVERS: ' , ' }, 'WEBHOOK_DNS_SERVERS is set but lists no server'],
  ])('explains a bad setting %j', (env, message) => {
    const start = () => webhookNetworkConfig(env, false);
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(message);
  });

  it('refuses a CA file that holds no certificate', () => {
    expect(() => webhookNetworkConfig({ WEBHOOK_CA_FILE: path.join(dir, 'not-a-ca.txt') }, false)).toThrow(/holds no PEM certificate/);
  });
});
