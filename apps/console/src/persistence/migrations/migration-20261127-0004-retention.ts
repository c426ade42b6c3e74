import { Migration } from '@mikro-orm/migrations';

export class Migration20261127000400ConsoleRetention extends Migration {
  override async up(): Promise<void> {
    // The pruner deletes oldest first by these columns (console-retention.pruner.ts).
    this.addSql(`create index sign_in_requests_by_time on console.sign_in_requests (at)`);
    this.addSql(`create index sign_in_links_by_expiry on console.sign_in_links (expires_at)`);
    this.addSql(`create index invitations_by_expiry on console.invitations (expires_at)`);
    this.addSql(`create index mail_outbox_by_sent on console.mail_outbox (sent_at) where sent_at is not null`);
  }
}
