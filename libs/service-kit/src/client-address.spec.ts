import type { IncomingMessage } from 'node:http';
import { clientAddress, trustedProxies } from './client-address';

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
