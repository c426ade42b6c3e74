import { Migration } from '@mikro-orm/migrations';

/** Each app's messages per UTC day by the status they reached (ADR 0218), projected from messaging.events. */
export class Migration20261205000900ConsoleMessageDailyCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table console.message_daily_counts (
      app_id text not null,
      day date not null,
      sent integer not null default 0,
      delivered integer not null default 0,
      read integer not null default 0,
      failed integer not null default 0,
      primary key (app_id, day)
    )`);
  }
}
