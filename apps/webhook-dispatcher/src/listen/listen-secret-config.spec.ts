import { refusedInProduction, strongSecret } from '#platform/testing';
import { listenServerSecret } from './listen-secret-config';

describe('WEBHOOK_LISTEN_SECRET (webhook dispatcher: the key `platformctl listen` signing secrets derive from)', () => {
  it.each(refusedInProduction('dev-webhook-listen-secret'))('is refused in production: %s', (_, value) => {
    expect(() => listenServerSecret({ WEBHOOK_LISTEN_SECRET: value }, true)).toThrow('WEBHOOK_LISTEN_SECRET');
  });

  it('is taken in production when strong, and falls back to the dev value in dev and test', () => {
    const secret = strongSecret();
    expect(listenServerSecret({ WEBHOOK_LISTEN_SECRET: secret }, true)).toBe(secret);
    expect(listenServerSecret({}, false)).toBe('dev-webhook-listen-secret');
  });
});
