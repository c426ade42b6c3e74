import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C traceparent of the unit of work that created a delivery (the consumed event, the test
 * call, or the original delivery for a replay), so every attempt, however late, logs in that trace.
 * Nullable: deliveries created before this column, or without a trace, start a trace per attempt.
 */
export class Migration20261122000300DeliveryTraceparent extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table webhook_dispatcher.deliveries add column traceparent text`);
  }
}
