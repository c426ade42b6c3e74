import { Migration } from '@mikro-orm/migrations';

/**
 * What the delivery log shows of each attempt's exchange (ADR 0220): the request headers as sent
 * (a JSON array of {name, value}) and the response body's first 2 KiB as text. Both are cleared 7
 * days after the attempt; the partial index finds the rows still holding them.
 */
export class Migration20261205001100AttemptExchange extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table webhook_dispatcher.delivery_attempts add column request_headers jsonb, add column response_excerpt text`);
    this.addSql(
      `create index delivery_attempts_exchange_kept on webhook_dispatcher.delivery_attempts (started_at) where request_headers is not null or response_excerpt is not null`,
    );
  }
}
