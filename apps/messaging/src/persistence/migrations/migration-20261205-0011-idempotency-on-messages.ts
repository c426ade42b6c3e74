import { Migration } from '@mikro-orm/migrations';

/**
 * An accepted send's Idempotency-Key moves onto its message row, and `send_requests` goes
 * (docs/adr/0227-idempotency-keys-on-the-message-row.md). The claims of the last 24 hours are
 * copied to their messages first, so a repeat sent across the upgrade is still a replay; older
 * ones counted for nothing already and are copied too, harmlessly.
 */
export class Migration20261205001100IdempotencyOnMessages extends Migration {
  override async up(): Promise<void> {
    for (const sql of idempotencyOnMessagesSql('messaging')) this.addSql(sql);
  }
}

/** The migration's statements for a messaging schema (a test runs them on a scratch one). */
export function idempotencyOnMessagesSql(schema: string): string[] {
  return [
    `alter table ${schema}.messages add column idempotency_key text, add column body_hash text`,
    `update ${schema}.messages m set idempotency_key = s.idempotency_key, body_hash = s.body_hash
       from ${schema}.send_requests s where s.message_id = m.message_id and s.app_id = m.app_id`,
    // Not unique: a key is free again after 24 hours, and concurrent sends of one key queue on a lock
    // (send-batch.sql.ts), so the lookup takes the newest message of the key within the 24 hours.
    `create index messages_idempotency_key_idx on ${schema}.messages (app_id, idempotency_key, created_at) where idempotency_key is not null`,
    `drop table ${schema}.send_requests`,
  ];
}
