import { deciderSpecification } from '#platform/decider/testing';
import { apiKeysDecider } from './api-keys.decider';
import type { ApiKeyEvent } from './api-keys.state';
import { displayPrefix, environmentOfKey, generateApiKey, hashApiKey, hashesEqual, looksLikeApiKey } from './api-key-format';

const now = new Date('2026-11-01T10:00:00Z');
const spec = deciderSpecification(apiKeysDecider);
const created = (keyId: string, environment: 'sandbox' | 'live', expiresAt: string | null = null): ApiKeyEvent => ({
  type: 'ApiKeyCreated',
  data: { appId: 'app_1', keyId, environment, scopes: ['messages:send'], expiresAt, keyHash: `h_${keyId}`, prefix: 'qk_sb_abcd' },
});
const create = (keyId: string, environment: 'sandbox' | 'live', expiresAt: string | null = null) => ({
  type: 'CreateApiKey' as const,
  data: { appId: 'app_1', keyId, environment, scopes: ['messages:send' as const], expiresAt, keyHash: `h_${keyId}`, prefix: 'qk_sb_abcd' },
  metadata: { now },
});
const revoke = (keyId: string) => ({ type: 'RevokeApiKey' as const, data: { appId: 'app_1', keyId }, metadata: { now } });
const revoked = (keyId: string): ApiKeyEvent => ({ type: 'ApiKeyRevoked', data: { appId: 'app_1', keyId } });

describe('API keys decider', () => {
  it('creates a first key', () =>
    spec
      .given([])
      .when(create('k1', 'sandbox'))
      .then([created('k1', 'sandbox')]));
  it('allows a second active key per environment', () =>
    spec
      .given([created('k1', 'sandbox')])
      .when(create('k2', 'sandbox'))
      .then([created('k2', 'sandbox')]));
  it('refuses a third active key in one environment', () =>
    spec
      .given([created('k1', 'sandbox'), created('k2', 'sandbox')])
      .when(create('k3', 'sandbox'))
      .thenThrows('key_limit_reached'));
  it('counts environments apart', () =>
    spec
      .given([created('k1', 'sandbox'), created('k2', 'sandbox')])
      .when(create('k3', 'live'))
      .then([created('k3', 'live')]));
  it('revoked keys free their place', () =>
    spec
      .given([created('k1', 'sandbox'), created('k2', 'sandbox'), revoked('k1')])
      .when(create('k3', 'sandbox'))
      .then([created('k3', 'sandbox')]));
  it('expired keys free their place', () =>
    spec
      .given([created('k1', 'sandbox', '2026-10-01T00:00:00Z'), created('k2', 'sandbox')])
      .when(create('k3', 'sandbox'))
      .then([created('k3', 'sandbox')]));
  it('refuses an expiry in the past', () =>
    spec
      .given([])
      .when(create('k1', 'sandbox', '2026-10-01T00:00:00Z'))
      .thenThrows('invalid_request'));
  it('revokes a key', () =>
    spec
      .given([created('k1', 'sandbox')])
      .when(revoke('k1'))
      .then([revoked('k1')]));
  it('revoking twice emits nothing', () =>
    spec
      .given([created('k1', 'sandbox'), revoked('k1')])
      .when(revoke('k1'))
      .then([]));
  it('refuses to revoke an unknown key', () => spec.given([]).when(revoke('nope')).thenThrows('not_found'));
});

describe('API key format', () => {
  it('generates keys of the documented shape per environment', () => {
    const sb = generateApiKey('sandbox');
    const live = generateApiKey('live');
    expect(sb).toMatch(/^qk_sb_[0-9A-Za-z]{32}$/);
    expect(live).toMatch(/^qk_live_[0-9A-Za-z]{32}$/);
    expect(looksLikeApiKey(sb) && looksLikeApiKey(live)).toBe(true);
    expect(environmentOfKey(live)).toBe('live');
    expect(displayPrefix(sb)).toHaveLength('qk_sb_'.length + 4);
  });
  it('refuses malformed keys before any lookup', () => {
    for (const bad of ['', 'qk_sb_short', 'sk_live_' + 'a'.repeat(32), 'qk_sb_' + 'a'.repeat(31) + '!', 'qk_test_' + 'a'.repeat(32)]) {
      expect(looksLikeApiKey(bad)).toBe(false);
    }
  });
  it('compares hashes by value', () => {
    const key = generateApiKey('sandbox');
    expect(hashesEqual(hashApiKey(key), hashApiKey(key))).toBe(true);
    expect(hashesEqual(hashApiKey(key), hashApiKey(generateApiKey('sandbox')))).toBe(false);
    expect(hashApiKey(key)).toHaveLength(64);
  });
});
