import { randomBytes } from 'node:crypto';
import { ConfigError } from './config';
import { DEV_SECRETS_KEYS } from './production-secrets';
import { SealedValueError, SecretKeyRing } from './secret-key-ring';

const k1 = randomBytes(32).toString('base64');
const k2 = randomBytes(32).toString('base64');

describe('SecretKeyRing', () => {
  it('seals with AES-256-GCM under the active key and names the key in the value', () => {
    const ring = SecretKeyRing.parse(`k1:${k1}`, 'k1');
    const sealed = ring.seal('whsec_abc', 'ctx');
    expect(sealed).toMatch(/^v1\.k1\.[\w-]{16}\.[\w-]+\.[\w-]{22}$/);
    expect(sealed).not.toContain('whsec_abc');
    expect(ring.seal('whsec_abc', 'ctx')).not.toBe(sealed);
    expect(ring.open(sealed, 'ctx')).toBe('whsec_abc');
  });

  it('refuses a value opened in another context, altered, or under an unknown key', () => {
    const ring = SecretKeyRing.parse(`k1:${k1}`, 'k1');
    const sealed = ring.seal('token', 'row-1');
    expect(() => ring.open(sealed, 'row-2')).toThrow(SealedValueError);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tokem').toString('base64url');
    expect(() => ring.open(parts.join('.'), 'row-1')).toThrow(SealedValueError);
    expect(() => SecretKeyRing.parse(`k2:${k2}`, 'k2').open(sealed, 'row-1')).toThrow(/k1/);
    expect(() => ring.open('token', 'row-1')).toThrow(SealedValueError);
  });

  it('reads values of every listed key and reseals them under the active one', () => {
    const old = SecretKeyRing.parse(`k1:${k1}`, 'k1');
    const sealed = old.seal('s', 'c');
    const rotated = SecretKeyRing.parse(`k1:${k1},k2:${k2}`, 'k2');
    expect(rotated.open(sealed, 'c')).toBe('s');
    const resealed = rotated.reseal(sealed, 'c');
    expect(SecretKeyRing.keyIdOf(resealed)).toBe('k2');
    expect(rotated.reseal(resealed, 'c')).toBe(resealed);
    expect(rotated.open(rotated.reseal('legacy plaintext', 'c'), 'c')).toBe('legacy plaintext');
  });

  it('checks its configuration', () => {
    expect(() => SecretKeyRing.parse(`k1:${k1}`, 'k2')).toThrow(ConfigError);
    expect(() => SecretKeyRing.parse('k1:c2hvcnQ=', 'k1')).toThrow(/32 bytes/);
    expect(() => SecretKeyRing.parse(`k1:${k1},k1:${k2}`, 'k1')).toThrow(/twice/);
    expect(() => SecretKeyRing.parse(`bad kid:${k1}`, 'bad kid')).toThrow(ConfigError);
  });

  it('uses the dev key outside production and refuses production without keys or with the dev key', () => {
    expect(SecretKeyRing.fromEnv({}, false).activeKeyId).toBe('dev');
    expect(SecretKeyRing.fromEnv({ SECRETS_KEYS: '', SECRETS_ACTIVE_KEY_ID: '' }, false).activeKeyId).toBe('dev');
    expect(() => SecretKeyRing.fromEnv({ SECRETS_KEYS: '' }, true)).toThrow(/required in production/);
    expect(() => SecretKeyRing.fromEnv({}, true)).toThrow(/required in production/);
    expect(() => SecretKeyRing.fromEnv({ SECRETS_KEYS: DEV_SECRETS_KEYS, SECRETS_ACTIVE_KEY_ID: 'dev' }, true)).toThrow(/dev value of SECRETS_KEYS/);
    const devKey = DEV_SECRETS_KEYS.split(':')[1];
    expect(() => SecretKeyRing.fromEnv({ SECRETS_KEYS: `k1:${k1},other:${devKey}`, SECRETS_ACTIVE_KEY_ID: 'k1' }, true)).toThrow(/dev value of SECRETS_KEYS/);
    expect(() => SecretKeyRing.fromEnv({ SECRETS_KEYS: `k1:${k1}` }, true)).toThrow(/SECRETS_ACTIVE_KEY_ID/);
    expect(SecretKeyRing.fromEnv({ SECRETS_KEYS: `k1:${k1}`, SECRETS_ACTIVE_KEY_ID: 'k1' }, true).activeKeyId).toBe('k1');
  });
});
