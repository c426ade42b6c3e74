import { Migration } from '@mikro-orm/migrations';
import type { SecretKeyRing } from '#platform/service-kit';
import { resealCredentials } from '../../endpoints/endpoint-credentials';

/**
 * Endpoint credentials were stored in plaintext before: seal every existing row with the key ring
 * (SECRETS_KEYS). A Node migration rather than SQL because the key never reaches Postgres; it runs in
 * the migrations' transaction, so a failure leaves every row as it was.
 */
export function sealCredentialsMigration(ring: SecretKeyRing) {
  return class Migration20261126000500SealCredentials extends Migration {
    override async up(): Promise<void> {
      await resealCredentials((sql, params) => this.execute(sql, params), ring);
    }
  };
}
