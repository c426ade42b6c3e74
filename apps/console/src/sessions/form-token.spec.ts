import { SecretKeyRing } from '#platform/service-kit';
import { formTokenFor, formTokenMatches } from './form-token';
import { newToken } from './secret-tokens';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');

describe('the pre-session form token', () => {
  const keys = SecretKeyRing.parse(`k1:${key(1)}`, 'k1');

  it('matches the cookie it was made for, and no other', () => {
    const mine = newToken();
    const theirs = newToken();
    const token = formTokenFor(keys, mine);
    expect(formTokenMatches(keys, mine, token)).toBe(true);
    expect(formTokenMatches(keys, theirs, token)).toBe(false);
    expect(formTokenMatches(keys, undefined, token)).toBe(false);
  });

  it('is refused when the sender made it: the cookie itself, a forged or altered token, one under an unknown key', () => {
    const cookie = newToken();
    const token = formTokenFor(keys, cookie);
    const [version, kid, iv, body, tag] = token.split('.');
    const altered = [version, kid, iv, body, tag.slice(0, -2) + (tag.endsWith('AA') ? 'BB' : 'AA')].join('.');
    const elsewhere = formTokenFor(SecretKeyRing.parse(`k1:${key(2)}`, 'k1'), cookie);
    for (const forged of [cookie, '', 'forged', altered, elsewhere, 'v1.k1..x.', 'v1.k1.AAAA..AAAA'])
      expect([forged, formTokenMatches(keys, cookie, forged)]).toEqual([forged, false]);
  });

  it('still matches after the key ring rotates, while the key it was made under is listed', () => {
    const cookie = newToken();
    const token = formTokenFor(keys, cookie);
    expect(formTokenMatches(SecretKeyRing.parse(`k1:${key(1)},k2:${key(2)}`, 'k2'), cookie, token)).toBe(true);
  });
});
