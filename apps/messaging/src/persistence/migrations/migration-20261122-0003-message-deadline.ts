import { Migration } from '@mikro-orm/migrations';

/** The expiry sweep (D4) looks only at messages still waiting for delivery, oldest first. */
export class Migration20261122000300MessageDeadline extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index messages_awaiting_delivery_idx on messaging.messages (created_at) where status = 'sent'`);
  }
}
