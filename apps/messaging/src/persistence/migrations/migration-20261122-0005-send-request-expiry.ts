import { Migration } from '@mikro-orm/migrations';

/** Claims of Idempotency-Keys are deleted once their 24 hours are over, oldest first. */
export class Migration20261122000500SendRequestExpiry extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index send_requests_created_idx on messaging.send_requests (created_at)`);
  }
}
