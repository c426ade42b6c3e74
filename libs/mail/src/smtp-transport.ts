import { createTransport, type Transporter } from 'nodemailer';

export interface MailSettings {
  transport: Transporter;
  from: string;
}

/**
 * The SMTP transport of SMTP_URL (`smtp://` or `smtps://`, credentials in the URL) and the From
 * address of MAIL_FROM (default `no-reply@localhost`). Production refuses to start without SMTP_URL,
 * since it would queue emails nobody ever sends.
 */
export function mailSettingsFromEnv(env: NodeJS.ProcessEnv, { production }: { production: boolean }): MailSettings {
  const url = env.SMTP_URL?.trim();
  if (!url) {
    if (production) throw new Error('SMTP_URL is required in production');
  } else if (!/^smtps?:\/\//.test(url)) {
    throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  }
  const from = env.MAIL_FROM?.trim() || 'no-reply@localhost';
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(from)) throw new Error('MAIL_FROM must be a plain address (name@domain)');
  return { transport: createTransport(url || 'smtp://127.0.0.1:1025'), from };
}
