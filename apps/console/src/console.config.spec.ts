import { refusedInProduction } from '#platform/testing';
import { loadConsoleSettings } from './console.config';

describe('loadConsoleSettings', () => {
  it('serves the console at http://localhost:3002 in dev, without a trailing slash when given one', () => {
    expect(loadConsoleSettings({}, false).consoleUrl).toBe('http://localhost:3002');
    expect(loadConsoleSettings({ CONSOLE_URL: 'http://127.0.0.1:4002/' }, false).consoleUrl).toBe('http://127.0.0.1:4002');
  });

  it('needs https in production (its cookies are Secure there) and an SMTP server', () => {
    expect(() => loadConsoleSettings({ CONSOLE_URL: 'http://console.example.com', SMTP_URL: 'smtp://mail.example.com' }, true)).toThrow('https in production');
    expect(() => loadConsoleSettings({ CONSOLE_URL: 'https://console.example.com' }, true)).toThrow('SMTP_URL is required in production');
    const keys = { SECRETS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`, SECRETS_ACTIVE_KEY_ID: 'k1' };
    expect(loadConsoleSettings({ CONSOLE_URL: 'https://console.example.com', SMTP_URL: 'smtp://mail.example.com', ...keys }, true).consoleUrl).toBe(
      'https://console.example.com',
    );
  });

  it('reads TRUSTED_PROXIES as the gateway does', () => {
    expect(loadConsoleSettings({ TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1' }, false).trustedProxies.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(() => loadConsoleSettings({ TRUSTED_PROXIES: 'proxy.local' }, false)).toThrow('TRUSTED_PROXIES');
  });

  it.each(refusedInProduction('dev:ZGV2LW9ubHktc2VjcmV0cy1rZXktMzItYnl0ZXMhISE'))('refuses SECRETS_KEYS in production: %s', (_, value) => {
    const env = { CONSOLE_URL: 'https://console.example.com', SMTP_URL: 'smtps://mail.example.com', SECRETS_KEYS: value, SECRETS_ACTIVE_KEY_ID: 'dev' };
    expect(() => loadConsoleSettings(env, true)).toThrow('SECRETS_KEYS');
  });
});
