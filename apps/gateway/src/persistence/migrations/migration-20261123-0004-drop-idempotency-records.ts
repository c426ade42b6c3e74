import { Migration } from '@mikro-orm/migrations';

/**
 * POST /messages' Idempotency-Key records live in messaging alone (`messaging.send_requests`),
 * written in the send's own transaction. The gateway's copy cost every send two more writes and
 * two group commits on its way, and held nothing messaging's did not. A key a client retries across
 * the upgrade is answered from messaging's record, which every accepted send has.
 */
export class Migration20261123000400GatewayDropIdempotencyRecords extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop table if exists gateway.idempotency_records`);
  }
}
