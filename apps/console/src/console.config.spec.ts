import type { IncomingMessage } from 'node:http';
import { clientAddress } from '#platform/service-kit';
import { refusedInProduction } from '#platform/testing';
import { loadConsoleSettings } from './console.config';

/** A request from `peer` whose X-Forwarded-For names `forwarded`. */
const request = (peer: string, forwarded: string) =>
  ({ socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;
const keys = { SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`, SECRETS_ACTIVE_KEY_ID: 'k1' };
const production = { CONSOLE_URL: 'https://console.example.com', SMTP_URL: 'smtps://mail.example.com', ...keys };

describe('loadConsoleSettings', () => {
  it('serves the console at http://localhost:3002 in dev, without a trailing slash when given one', () => {
    expect(loadConsoleSettings({}, false).consoleUrl).toBe('http://localhost:3002');
    expect(loadConsoleSettings({ CONSOLE_URL: 'http://127.0.0.1:4002/' }, false).consoleUrl).toBe('http://127.0.0.1:4002');
  });

  it('needs https in production (its cookies are Secure there) and an SMTP server', () => {
    expect(() => loadConsoleSettings({ CONSOLE_URL: 'http://console.example.com', SMTP_URL: 'smtp://mail.example.com' }, true)).toThrow('https in production');
    expect(() => loadConsoleSettings({ CONSOLE_URL: 'https://console.example.com' }, true)).toThrow('SMTP_URL is required in production');
    expect(loadConsoleSettings({ ...production, TRUSTED_PROXIES: '10.0.0.0/8' }, true).consoleUrl).toBe('https://console.example.com');
  });

  it('reads TRUSTED_PROXIES as the gateway does', () => {
    expect(loadConsoleSettings({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' }, false).trustedProxies.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(() => loadConsoleSettings({ TRUSTED_PROXIES: 'proxy.local' }, false)).toThrow('TRUSTED_PROXIES');
  });

  it.each(refusedInProduction('dev:ZGV2LW9ubHktc2VjcmV0cy1rZXktMzItYnl0ZXMhISE'))('refuses SECRETS_KEYS in production: %s', (_, value) => {
    const env = { ...production, TRUSTED_PROXIES: 'none', SECRETS_KEYS: value, SECRETS_ACTIVE_KEY_ID: 'dev' };
    expect(() => loadConsoleSettings(env, true)).toThrow('SECRETS_KEYS');
  });

  it('refuses to start in production without TRUSTED_PROXIES; none says it is exposed directly', () => {
    expect(() => loadConsoleSettings(production, true)).toThrow('TRUSTED_PROXIES is required in production');
    const direct = loadConsoleSettings({ ...production, TRUSTED_PROXIES: 'none' }, true);
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), direct.trustedProxies)).toBe('10.1.2.3');
    const proxied = loadConsoleSettings({ ...production, TRUSTED_PROXIES: '10.0.0.0/8' }, true);
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), proxied.trustedProxies)).toBe('198.51.100.1');
  });

  it('serves health, readiness and metrics on INTERNAL_PORT (3003), never the public port', () => {
    expect(loadConsoleSettings({}, false).internalPort).toBe(3003);
    expect(loadConsoleSettings({ PORT: '4002', INTERNAL_PORT: '4003' }, false).internalPort).toBe(4003);
    expect(() => loadConsoleSettings({ PORT: '4002', INTERNAL_PORT: '4002' }, false)).toThrow('INTERNAL_PORT must differ');
    expect(() => loadConsoleSettings({ INTERNAL_PORT: 'metrics' }, false)).toThrow('INTERNAL_PORT must be a port number');
  });

  it('names its cookies __Host- (Secure, Path=/, no Domain) in production; plain names over http in dev and test', () => {
    const inProduction = loadConsoleSettings({ ...production, TRUSTED_PROXIES: 'none' }, true).cookies;
    expect(inProduction).toEqual({ secure: true, session: '__Host-console_session', formToken: '__Host-console_csrf' });
    // Browsers refuse a __Host- cookie without Secure, and Secure over http: the local console keeps plain names.
    expect(loadConsoleSettings({ CONSOLE_URL: 'http://127.0.0.1:4002' }, false).cookies).toEqual({
      secure: false,
      session: 'console_session',
      formToken: 'console_csrf',
    });
  });
});
