import type { Transporter } from 'nodemailer';
import type { PostgresOrm } from '#platform/postgres';
import { retryDelayMs } from './mail-retry';

export interface MailSenderOptions {
  orm: PostgresOrm;
  /** The schema whose mail_outbox this sender drains. */
  schema: string;
  transport: Pick<Transporter, 'sendMail'>;
  /** The From address (MAIL_FROM). */
  from: string;
  /** How often to look for due emails when none is waiting (default 500 ms). */
  pollMs?: number;
  /** How long a claimed email is this sender's before another may try it (default 60 s). */
  leaseMs?: number;
  /** Emails per round (default 20). */
  batchSize?: number;
  /** The service's clock (default the system's): `sent_at`, which the sent rows' retention counts by. Retries wait in real time. */
  now?: () => Date;
  onSent?: (messageId: string) => void;
  onError?: (error: unknown, context: Record<string, unknown>) => void;
}

interface ClaimedMail {
  message_id: string;
  to_addresses: string[];
  subject: string;
  text_body: string;
  html_body: string;
  attempts: number;
}

/**
 * Sends what the mail outbox holds over SMTP: claims due rows with a lease (several replicas share
 * the work, a crashed one's claims come back when the lease ends), sends each, marks it sent, or
 * schedules the next try with a growing delay while the SMTP server refuses. An email is never
 * dropped. A crash after the server accepted an email but before it was marked sent sends it once
 * more, with the same Message-ID.
 */
export class MailSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(private readonly options: MailSenderOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One round: sends every due email it can claim; returns how many were sent. */
  async sendDue(): Promise<number> {
    const o = this.options;
    const em = o.orm.em.fork();
    const claimed = await em.execute<ClaimedMail[]>(
      `update ${o.schema}.mail_outbox set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ?)
       where message_id in (select message_id from ${o.schema}.mail_outbox where sent_at is null and next_attempt_at <= now()
                            order by next_attempt_at limit ? for update skip locked)
       returning message_id, to_addresses, subject, text_body, html_body, attempts`,
      [(o.leaseMs ?? 60_000) / 1000, o.batchSize ?? 20],
    );
    let sent = 0;
    for (const mail of claimed) {
      try {
        await o.transport.sendMail({
          from: o.from,
          to: mail.to_addresses,
          subject: mail.subject,
          text: mail.text_body,
          html: mail.html_body,
          messageId: `<${mail.message_id}>`,
        });
        // Bodies go once sent: some carry sign-in links. Who, what subject and when stay as the record.
        await em.execute(`update ${o.schema}.mail_outbox set sent_at = ?, last_error = null, text_body = '', html_body = '' where message_id = ?`, [
          o.now?.() ?? new Date(),
          mail.message_id,
        ]);
        sent += 1;
        o.onSent?.(mail.message_id);
      } catch (error) {
        const delaySeconds = retryDelayMs(mail.attempts) / 1000;
        await em.execute(`update ${o.schema}.mail_outbox set next_attempt_at = now() + make_interval(secs => ?), last_error = ? where message_id = ?`, [
          delaySeconds,
          String((error as Error)?.message ?? error).slice(0, 1000),
          mail.message_id,
        ]);
        o.onError?.(error, { schema: o.schema, messageId: mail.message_id, attempt: mail.attempts, retryInSeconds: delaySeconds });
      }
    }
    return sent;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sendDue()
        .then(
          (sent) => this.schedule(sent > 0 ? 0 : (this.options.pollMs ?? 500)),
          (error) => {
            this.options.onError?.(error, { schema: this.options.schema });
            this.schedule(this.options.pollMs ?? 500);
          },
        )
        .finally(() => {
          this.running = null;
        });
    }, delayMs);
  }
}
