import type { IncomingMessage } from 'node:http';
import { clientAddress } from '#platform/service-kit';
import { refusedInProduction, strongSecret } from '#platform/testing';
import { loadGatewayConfig } from './gateway.config';

/** A request from `peer` whose X-Forwarded-For names `forwarded`. */
const request = (peer: string, forwarded: string) =>
  ({ socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

const production: NodeJS.ProcessEnv = {
  NODE_ENV: 'production',
  ADMIN_TOKEN: strongSecret(),
  APP_USER_ID_SECRET: strongSecret(),
  SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  SECRETS_ACTIVE_KEY_ID: 'k1',
  TRUSTED_PROXIES: '10.0.0.0/8',
};

describe('loadGatewayConfig: its secrets in production (docs/operations.md, "Secrets")', () => {
  it.each(refusedInProduction('dev-admin-token'))('refuses ADMIN_TOKEN (the admin API bearer token): %s', (_, value) => {
    expect(() => loadGatewayConfig({ ...production, ADMIN_TOKEN: value })).toThrow('ADMIN_TOKEN');
  });

  it.each(refusedInProduction('dev-app-user-id-secret'))('refuses APP_USER_ID_SECRET: %s', (_, value) => {
    expect(() => loadGatewayConfig({ ...production, APP_USER_ID_SECRET: value })).toThrow('APP_USER_ID_SECRET');
  });

  it.each(refusedInProduction('dev:ZGV2LW9ubHktc2VjcmV0cy1rZXktMzItYnl0ZXMhISE'))('refuses SECRETS_KEYS (the key ring of webhook secrets): %s', (_, value) => {
    expect(() => loadGatewayConfig({ ...production, SECRETS_KEYS: value, SECRETS_ACTIVE_KEY_ID: 'dev' })).toThrow('SECRETS_KEYS');
  });

  it('starts with strong values, and with the dev ones in dev and test', () => {
    expect(loadGatewayConfig(production).adminToken).toBe(production.ADMIN_TOKEN);
    expect(loadGatewayConfig({}).adminToken).toBe('dev-admin-token');
    expect(loadGatewayConfig({ NODE_ENV: 'test', ADMIN_TOKEN: 'test-admin-token' }).adminToken).toBe('test-admin-token');
  });
});

describe('loadGatewayConfig: the mail sink (dev and test only)', () => {
  it('reads MAIL_SINK_URL in dev, without a trailing slash, and has none when unset', () => {
    expect(loadGatewayConfig({ MAIL_SINK_URL: 'http://127.0.0.1:1080/' }).mailSinkUrl).toBe('http://127.0.0.1:1080');
    expect(loadGatewayConfig({}).mailSinkUrl).toBeNull();
  });

  it('refuses MAIL_SINK_URL in production and a URL that is not http(s)', () => {
    expect(loadGatewayConfig(production).mailSinkUrl).toBeNull();
    expect(() => loadGatewayConfig({ ...production, MAIL_SINK_URL: 'http://127.0.0.1:1080' })).toThrow('production refuses it');
    expect(() => loadGatewayConfig({ MAIL_SINK_URL: 'smtp://127.0.0.1:1025' })).toThrow('http(s) URL');
  });
});

describe('loadGatewayConfig: TRUSTED_PROXIES', () => {
  const { TRUSTED_PROXIES: _, ...unset } = production;

  it('refuses to start in production without it: behind an ingress every client would share its bucket', () => {
    expect(() => loadGatewayConfig(unset)).toThrow('TRUSTED_PROXIES is required in production');
    expect(() => loadGatewayConfig({ ...unset, TRUSTED_PROXIES: ' ' })).toThrow('TRUSTED_PROXIES is required in production');
  });

  it('believes X-Forwarded-For from the proxies named, and from nobody with an explicit none', () => {
    const proxied = loadGatewayConfig({ ...unset, TRUSTED_PROXIES: '10.0.0.0/8' });
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), proxied.trustedProxies)).toBe('198.51.100.1');
    const direct = loadGatewayConfig({ ...unset, TRUSTED_PROXIES: 'none' });
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), direct.trustedProxies)).toBe('10.1.2.3');
    expect(() => loadGatewayConfig({ ...unset, TRUSTED_PROXIES: 'none, 10.0.0.0/8' })).toThrow('TRUSTED_PROXIES');
  });

  it('needs nothing in dev and test, where the peer is the client', () => {
    expect(clientAddress(request('10.1.2.3', '198.51.100.1'), loadGatewayConfig({}).trustedProxies)).toBe('10.1.2.3');
  });
});
