import { ConfigError, loadBaseConfig } from './config';

// Where the apps' ports listen (issue 32): loopback unless told, so a laptop exposes nothing.
describe('BIND_HOST', () => {
  it('defaults to 127.0.0.1', () => {
    expect(loadBaseConfig('profile', 'profile', 3040, {}).bindHost).toBe('127.0.0.1');
    expect(
      loadBaseConfig('profile', 'profile', 3040, { NODE_ENV: 'production', APP_USER_ID_SECRET: 'a-production-app-user-id-secret-of-48-bytes-long' }).bindHost,
    ).toBe('127.0.0.1');
  });

  it('takes an IPv4 or IPv6 address, such as the containers 0.0.0.0', () => {
    expect(loadBaseConfig('profile', 'profile', 3040, { BIND_HOST: '0.0.0.0' }).bindHost).toBe('0.0.0.0');
    expect(loadBaseConfig('profile', 'profile', 3040, { BIND_HOST: '::' }).bindHost).toBe('::');
    expect(loadBaseConfig('profile', 'profile', 3040, { BIND_HOST: '10.1.2.3' }).bindHost).toBe('10.1.2.3');
  });

  it('refuses anything but an address (a typo would otherwise fail in DNS at listen time, or bind elsewhere)', () => {
    expect(() => loadBaseConfig('profile', 'profile', 3040, { BIND_HOST: 'everywhere' })).toThrow(ConfigError);
    expect(() => loadBaseConfig('profile', 'profile', 3040, { BIND_HOST: '' })).toThrow(ConfigError);
  });
});
