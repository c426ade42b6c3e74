import { loadGatewayConfig } from './gateway.config';

describe('loadGatewayConfig: the mail sink (dev and test only)', () => {
  const production: NodeJS.ProcessEnv = {
    NODE_ENV: 'production',
    ADMIN_TOKEN: 'a-real-admin-token',
    APP_USER_ID_SECRET: 'a-real-app-user-id-secret',
    SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    SECRETS_ACTIVE_KEY_ID: 'k1',
  };

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
