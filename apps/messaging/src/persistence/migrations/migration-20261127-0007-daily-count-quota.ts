import { Migration } from '@mikro-orm/migrations';

/**
 * D8's counters carry the quota their last increment was decided under, and a CHECK keeps the count
 * within it: send batches read the counters unlocked and the check catches one that decided on a
 * stale count (ADR 0199). Rows before this (no quota) pass the check.
 */
export class Migration20261127000700DailyCountQuota extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table messaging.daily_counts add column if not exists quota integer`);
    this.addSql(`alter table messaging.daily_counts add constraint daily_counts_within_quota check (quota is null or accepted <= quota)`);
  }
}
