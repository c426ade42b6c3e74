import { loadBaseConfig } from '#platform/service-kit';
import { refusedInProduction, strongSecret } from '#platform/testing';
import { loadConsentConfig } from './consent.config';

const load = (env: NodeJS.ProcessEnv) => loadConsentConfig(loadBaseConfig('consent', 'consent', 3020, env));
const production = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ NODE_ENV: 'production', APP_USER_ID_SECRET: strongSecret(), ...env });

describe('OPTIN_LINK_SECRET (consent: the HMAC key of opt-in link tokens)', () => {
  it.each(refusedInProduction('dev-optin-link-secret'))('is refused in production: %s', (_, value) => {
    expect(() => load(production({ OPTIN_LINK_SECRET: value }))).toThrow('OPTIN_LINK_SECRET');
  });

  it('is taken in production when strong, and falls back to the dev value in dev and test', () => {
    const secret = strongSecret();
    expect(load(production({ OPTIN_LINK_SECRET: secret })).optInLinkSecret).toBe(secret);
    expect(load({}).optInLinkSecret).toBe('dev-optin-link-secret');
  });
});
