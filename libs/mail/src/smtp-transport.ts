import { createTransport, type Transporter } from 'nodemailer';

export interface MailSettings {
  transport: Transporter;
  from: string;
}

/**
 * Query parameters of SMTP_URL that nodemailer reads and that would turn TLS off or make it
 * optional (they win over the options given beside the URL): refused in production.
 */
const TLS_WEAKENING_PARAMETERS = ['secure', 'ignoreTLS', 'requireTLS', 'opportunisticTLS', 'tls.rejectUnauthorized'];

/** How to reach the SMTP server: nodemailer's URL, and whether STARTTLS is required on it. */
export interface SmtpTransportOptions {
  url: string;
  requireTLS: boolean;
}

/**
 * The SMTP transport of SMTP_URL (`smtp://` or `smtps://`, credentials in the URL) and the From
 * address of MAIL_FROM (default `no-reply@localhost`); see smtpTransportOptions for what production
 * refuses.
 */
export function mailSettingsFromEnv(env: NodeJS.ProcessEnv, { production }: { production: boolean }): MailSettings {
  const options = smtpTransportOptions(env, { production });
  const from = env.MAIL_FROM?.trim() || 'no-reply@localhost';
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(from)) throw new Error('MAIL_FROM must be a plain address (name@domain)');
  return { transport: createTransport(options), from };
}

/**
 * Production refuses to start without SMTP_URL, since it would queue emails nobody ever sends, and
 * sends only over TLS (the emails carry sign-in and invitation links, the URL a password):
 * `smtps://`, or `smtp://` with STARTTLS required (a server that does not offer it is refused, never
 * fallen back from). Plaintext is only for the relay SMTP_PLAINTEXT_RELAY names, which must be
 * SMTP_URL's host (a relay beside the pod that sends on over TLS). Dev and test talk plaintext to
 * the local sink (smtp://127.0.0.1:1025 when SMTP_URL is unset).
 */
export function smtpTransportOptions(env: NodeJS.ProcessEnv, { production }: { production: boolean }): SmtpTransportOptions {
  const url = env.SMTP_URL?.trim();
  if (!url) {
    if (production) throw new Error('SMTP_URL is required in production');
    return { url: 'smtp://127.0.0.1:1025', requireTLS: false };
  }
  if (!/^smtps?:\/\//.test(url)) throw new Error('SMTP_URL must be an smtp:// or smtps:// URL');
  if (!production) return { url, requireTLS: false };
  return { url, requireTLS: productionRequiresStartTls(url, env.SMTP_PLAINTEXT_RELAY?.trim() || null) };
}

/** Whether a production SMTP_URL must upgrade with STARTTLS (false: smtps:// is TLS from the start, or the named plaintext relay). */
function productionRequiresStartTls(url: string, plaintextRelay: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('SMTP_URL is not a valid URL');
  }
  const weakening = TLS_WEAKENING_PARAMETERS.filter((name) => parsed.searchParams.has(name));
  if (weakening.length > 0) throw new Error(`SMTP_URL may not set ${weakening.join(', ')} in production: TLS is required there (see SMTP_PLAINTEXT_RELAY)`);
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (plaintextRelay !== null) {
    // Bound to one host, so a changed SMTP_URL never inherits a plaintext exception meant for the relay.
    if (parsed.protocol !== 'smtp:' || plaintextRelay.replace(/^\[|\]$/g, '').toLowerCase() !== host)
      throw new Error(`SMTP_PLAINTEXT_RELAY=${plaintextRelay} must name the host of an smtp:// SMTP_URL (it is ${parsed.protocol}//${host})`);
    return false;
  }
  return parsed.protocol === 'smtp:';
}
