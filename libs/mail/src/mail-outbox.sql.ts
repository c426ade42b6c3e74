import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { mailMessageId, type OutgoingMail } from './outgoing-mail';

/**
 * The mail outbox of a service's schema, for its migrations: one row per email, keyed by its
 * Message-ID, so queuing the same cause twice keeps one row. Rows stay after sending as the record
 * of what was sent (pruned with the service's other history).
 */
export function mailOutboxTablesSql(schema: string): string[] {
  return [
    `create table if not exists ${schema}.mail_outbox (
  message_id text primary key,
  cause text not null,
  to_addresses jsonb not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  created_at timestamptz not null default now(),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  last_error text,
  sent_at timestamptz
)`,
    `create index if not exists mail_outbox_due on ${schema}.mail_outbox (next_attempt_at) where sent_at is null`,
  ];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * Queues an email in the caller's transaction (the one that applies its cause): the email exists
 * exactly when its cause took effect. Returns false when the cause already queued it.
 */
export async function enqueueMail(em: EntityManager, schema: string, mail: OutgoingMail, fromAddress: string): Promise<boolean> {
  if (mail.to.length === 0) return false;
  const rows = await em.execute<{ message_id: string }[]>(
    `insert into ${schema}.mail_outbox (message_id, cause, to_addresses, subject, text_body, html_body) values (?, ?, ?::jsonb, ?, ?, ?)
     on conflict (message_id) do nothing returning message_id`,
    [mailMessageId(mail.cause, fromAddress, sha256), mail.cause, JSON.stringify(mail.to), mail.subject, mail.text, mail.html],
  );
  return rows.length > 0;
}
