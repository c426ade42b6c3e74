import { Migration } from '@mikro-orm/migrations';

/**
 * The worker claims due deliveries endpoint by endpoint, round robin (ADR 0204): the due index is
 * keyed by endpoint first, so one endpoint's backlog is never walked to reach another's. Each
 * attempt keeps the time it was due, which makes how late it went out visible.
 */
export class Migration20261129000900EndpointLanes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index webhook_dispatcher.deliveries_due_idx`);
    this.addSql(`create index deliveries_due_idx on webhook_dispatcher.deliveries (endpoint_id, next_attempt_at) where status = 'pending'`);
    this.addSql(`alter table webhook_dispatcher.delivery_attempts add column due_at timestamptz`);
  }
}
