import { readOptInLinkClaims, signOptInLink, verifyOptInLink } from './optin-link.token';

const secret = 'unit-test-secret';
const claims = { appId: 'app_1', linkId: 'lnk_abc', ref: 'spring.sale:2026', expiresAt: new Date('2026-12-01T00:00:00Z') };

describe('opt-in link token', () => {
  it('round-trips its claims', () => {
    expect(verifyOptInLink(secret, signOptInLink(secret, claims))).toEqual(claims);
  });

  it('is URL-safe', () => {
    expect(signOptInLink(secret, claims)).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it('keeps a null ref', () => {
    expect(verifyOptInLink(secret, signOptInLink(secret, { ...claims, ref: null }))?.ref).toBeNull();
  });

  it('refuses a token signed with another secret', () => {
    expect(verifyOptInLink(secret, signOptInLink('other-secret', claims))).toBeNull();
  });

  it('refuses changed claims (a later expiry, another app)', () => {
    const token = signOptInLink(secret, claims);
    const [, signature] = token.split('.');
    for (const forged of [
      { ...claims, expiresAt: new Date('2030-01-01T00:00:00Z') },
      { ...claims, appId: 'app_2' },
    ]) {
      const [payload] = signOptInLink(secret, forged).split('.');
      expect(verifyOptInLink(secret, `${payload}.${signature}`)).toBeNull();
    }
  });

  it('refuses a flipped signature character, a missing part and garbage', () => {
    const token = signOptInLink(secret, claims);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    expect(verifyOptInLink(secret, token.slice(0, -1) + last)).toBeNull();
    expect(verifyOptInLink(secret, token.split('.')[0])).toBeNull();
    expect(verifyOptInLink(secret, 'not-a-token')).toBeNull();
    expect(verifyOptInLink(secret, `${token}.extra`)).toBeNull();
  });

  it('reads claims without trusting them (to find the app), and rejects undecodable ones', () => {
    expect(readOptInLinkClaims(signOptInLink('other-secret', claims))?.appId).toBe('app_1');
    expect(readOptInLinkClaims('%%%')).toBeNull();
    expect(readOptInLinkClaims(Buffer.from('{"a":1}').toString('base64url'))).toBeNull();
  });
});
