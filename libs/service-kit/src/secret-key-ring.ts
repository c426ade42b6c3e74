import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { ConfigError } from './config-error';
import { DEV_SECRETS_KEYS, secretFromEnv } from './production-secrets';

/** The marker of a sealed value: `v1.<kid>.<iv>.<ciphertext>.<tag>`, each part base64url. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

export const DEV_SECRETS_ACTIVE_KEY_ID = 'dev';

/** A sealed value could not be opened: unknown key id, wrong context or tampered bytes. */
export class SealedValueError extends Error {}

/**
 * Secrets at rest and on Kafka (webhook signing secrets, verify tokens): AES-256-GCM under keys from
 * configuration, the key id stored with each value so old values stay readable after the active key
 * changes. The context (for example the table, column and row) is the additional authenticated data,
 * so a value copied to another row or field does not open there.
 */
export class SecretKeyRing {
  /** The keys as KeyObjects for the ciphers: on Node 24 a Buffer key costs several times a whole seal or open (ADR 0148). */
  private readonly cipherKeys: ReadonlyMap<string, KeyObject>;

  private constructor(
    private readonly keys: ReadonlyMap<string, Buffer>,
    readonly activeKeyId: string,
  ) {
    this.cipherKeys = new Map([...keys].map(([kid, key]) => [kid, createSecretKey(key)]));
  }

  /** `kid:base64key[,kid:base64key]` (32-byte keys, base64 or base64url) and the id to seal with. */
  static parse(keysSpec: string, activeKeyId: string): SecretKeyRing {
    const keys = new Map<string, Buffer>();
    for (const entry of keysSpec
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const colon = entry.indexOf(':');
      const kid = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID.test(kid)) throw new ConfigError('SECRETS_KEYS entries are kid:base64key, the kid of letters, digits, _ or - (at most 32)');
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== 32) throw new ConfigError(`SECRETS_KEYS key ${kid} must be 32 bytes (base64), not ${key.length}`);
      if (keys.has(kid)) throw new ConfigError(`SECRETS_KEYS lists key ${kid} twice`);
      keys.set(kid, key);
    }
    if (keys.size === 0) throw new ConfigError('SECRETS_KEYS lists no key');
    if (!keys.has(activeKeyId)) throw new ConfigError(`SECRETS_ACTIVE_KEY_ID ${activeKeyId || '(unset)'} is not among SECRETS_KEYS`);
    return new SecretKeyRing(keys, activeKeyId);
  }

  /** From SECRETS_KEYS and SECRETS_ACTIVE_KEY_ID; dev and tests fall back to the public dev key, production refuses. */
  static fromEnv(env: NodeJS.ProcessEnv, production = env.NODE_ENV === 'production'): SecretKeyRing {
    // Empty counts as unset: compose passes `${SECRETS_KEYS:-}` through.
    const given = env.SECRETS_KEYS || undefined;
    const keys = secretFromEnv(env, 'SECRETS_KEYS', production);
    const ring = SecretKeyRing.parse(keys, env.SECRETS_ACTIVE_KEY_ID || (given ? '' : DEV_SECRETS_ACTIVE_KEY_ID));
    // The dev key under another id is still the dev key.
    const devKey = Buffer.from(DEV_SECRETS_KEYS.split(':')[1], 'base64');
    if (production && [...ring.keys.values()].some((key) => key.equals(devKey)))
      throw new ConfigError('Refusing to run in production with the published dev value of SECRETS_KEYS (its key, under any id)');
    return ring;
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${VERSION}.`) && value.split('.').length === 5;
  }

  /** The key id a sealed value names, or null for anything else. */
  static keyIdOf(value: string): string | null {
    return SecretKeyRing.isSealed(value) ? value.split('.')[1] : null;
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.cipherKeys.get(this.activeKeyId)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.activeKeyId, iv.toString('base64url'), ciphertext.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  open(sealed: string, context: string): string {
    if (!SecretKeyRing.isSealed(sealed)) throw new SealedValueError('not a sealed value');
    const [, kid, iv, ciphertext, tag] = sealed.split('.');
    const key = this.cipherKeys.get(kid);
    if (!key) throw new SealedValueError(`sealed under key ${kid}, which SECRETS_KEYS does not list`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(`a value sealed under key ${kid} did not open (wrong context or altered)`);
    }
  }

  /** The value sealed under the active key: unchanged if it already is, sealed if it was plaintext (legacy rows). */
  reseal(value: string, context: string): string {
    if (!SecretKeyRing.isSealed(value)) return this.seal(value, context);
    if (SecretKeyRing.keyIdOf(value) === this.activeKeyId) return value;
    return this.seal(this.open(value, context), context);
  }
}
