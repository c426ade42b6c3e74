import type { IncomingMessage } from 'node:http';
import { clientAddress, trustedProxies, trustedProxiesFromEnv } from './client-address';

const request = (remoteAddress: string, forwarded?: string) =>
  ({ socket: { remoteAddress }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  const none = trustedProxies([]);
  const proxies = trustedProxies(['10.0.0.0/8', '127.0.0.1']);

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(request('192.0.2.7', '198.51.100.1'), none)).toBe('192.0.2.7');
    expect(clientAddress(request('::ffff:192.0.2.7'), none)).toBe('192.0.2.7');
  });
  it('behind trusted proxies, is the nearest hop that is not one', () => {
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), proxies)).toBe('198.51.100.1');
    expect(clientAddress(request('127.0.0.1', 'spoofed, 198.51.100.1, 10.9.9.9'), proxies)).toBe('198.51.100.1');
  });
  it('does not believe hops past an untrusted one, nor hops that are not addresses', () => {
    expect(clientAddress(request('10.1.2.3', '203.0.113.5, 198.51.100.1'), proxies)).toBe('198.51.100.1');
    expect(clientAddress(request('10.1.2.3', 'not-an-address'), proxies)).toBe('10.1.2.3');
    expect(clientAddress(request('10.1.2.3'), proxies)).toBe('10.1.2.3');
  });
  it('counts IPv6 clients by their /64', () => {
    expect(clientAddress(request('2001:db8:0:12:aaaa::1'), none)).toBe('2001:db8:0:12::/64');
    expect(clientAddress(request('2001:db8::1'), none)).toBe('2001:db8:0:0::/64');
    expect(clientAddress(request('::1'), none)).toBe('0:0:0:0::/64');
  });
});

describe('trustedProxiesFromEnv', () => {
  const from = (peer: string, TRUSTED_PROXIES?: string, production = true) =>
    clientAddress(request(peer, '198.51.100.1'), trustedProxiesFromEnv({ TRUSTED_PROXIES }, production));

  it('in production, needs a list of proxies or an explicit none', () => {
    expect(() => from('10.1.2.3', undefined)).toThrow('TRUSTED_PROXIES is required in production');
    expect(() => from('10.1.2.3', ' , ')).toThrow('TRUSTED_PROXIES is required in production');
    expect(from('10.1.2.3', '10.0.0.0/8, 192.0.2.1')).toBe('198.51.100.1');
    expect(from('10.1.2.3', 'none')).toBe('10.1.2.3');
    expect(from('10.1.2.3', 'None')).toBe('10.1.2.3');
  });
  it('trusts nobody in dev and test unless told', () => {
    expect(from('10.1.2.3', undefined, false)).toBe('10.1.2.3');
    expect(from('127.0.0.1', '127.0.0.1', false)).toBe('198.51.100.1');
  });
  it('refuses none beside addresses, names, and prefixes that are not one', () => {
    for (const value of ['none, 10.0.0.0/8', 'ingress.local', '10.0.0.0/33', '10.0.0.0/x', '2001:db8::/129', '10.0.0.0/8/1'])
      expect(() => trustedProxiesFromEnv({ TRUSTED_PROXIES: value }, true)).toThrow('TRUSTED_PROXIES');
  });
});
