import { Migration } from '@mikro-orm/migrations';

/** Simulator calls look up the consent events a user action caused. */
export class Migration20261122000300ConsentCausationIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index events_causation_idx on consent.events ((metadata->>'causationId'))`);
  }
}
