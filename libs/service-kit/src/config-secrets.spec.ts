import { ConfigError, loadBaseConfig } from './config';
import { refusedInProduction, strongSecret } from './production-secrets.test-helpers';

/** The secrets every service reads (loadBaseConfig): refused in production when missing, the dev value or short. */
const load = (env: NodeJS.ProcessEnv) => loadBaseConfig('profile', 'profile', 3040, env);
const production = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ NODE_ENV: 'production', APP_USER_ID_SECRET: strongSecret(), ...env });

describe('APP_USER_ID_SECRET (every service: the HMAC key of appUserIds)', () => {
  it.each(refusedInProduction('dev-app-user-id-secret'))('is refused in production: %s', (_, value) => {
    expect(() => load(production({ APP_USER_ID_SECRET: value }))).toThrow(ConfigError);
    expect(() => load(production({ APP_USER_ID_SECRET: value }))).toThrow('APP_USER_ID_SECRET');
  });

  it('is taken in production when strong, and falls back to the dev value in dev and test', () => {
    const secret = strongSecret();
    expect(load(production({ APP_USER_ID_SECRET: secret })).appUserIdSecret).toBe(secret);
    expect(load({}).appUserIdSecret).toBe('dev-app-user-id-secret');
    expect(load({ NODE_ENV: 'test', APP_USER_ID_SECRET: 'short-test-value' }).appUserIdSecret).toBe('short-test-value');
  });
});

describe('DB_SERVICE_PASSWORD (every service: the password of its svc_<schema> role)', () => {
  it.each(refusedInProduction('dev-service-password', { optional: true }))('is refused in production: %s', (_, value) => {
    expect(() => load(production({ DB_SERVICE_PASSWORD: value }))).toThrow('DB_SERVICE_PASSWORD');
  });

  it('may be unset in production (no role password: SERVICE_DATABASE_URL or another authentication); when set, it is the role’s', () => {
    expect(load(production({ DATABASE_URL: 'postgres://admin@db:5432/platform' })).serviceDatabaseUrl).toBe('postgres://svc_profile@db:5432/platform');
    const password = strongSecret();
    const config = load(production({ DATABASE_URL: 'postgres://admin@db:5432/platform', DB_SERVICE_PASSWORD: password }));
    expect(config.serviceDatabasePassword).toBe(password);
    expect(decodeURIComponent(new URL(config.serviceDatabaseUrl).password)).toBe(password);
  });
});
