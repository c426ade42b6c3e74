import type { ApiKeyRecord } from './api-key.cache';
import { displayPrefix, generateApiKey, hashApiKey } from './api-key-format';

/** A fresh sandbox key and the record a store would hold for it (valid, no expiry). */
export function testApiKey(): { key: string; record: ApiKeyRecord } {
  const key = generateApiKey('sandbox');
  return {
    key,
    record: {
      id: 'key_1',
      appId: 'app_1',
      environment: 'sandbox',
      scopes: ['messages:send'],
      expiresAt: null,
      revokedAt: null,
      keyHash: hashApiKey(key),
      prefix: displayPrefix(key),
    },
  };
}
