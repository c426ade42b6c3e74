/** An email the platform sends because something happened (its cause), written to the outbox first. */
export interface OutgoingMail {
  /**
   * What caused it, unique per email: the causing event's id and what the email is for (for
   * example `evt_123:endpoint-disabled:owner@example.com`). The Message-ID is made from it, so the
   * same cause never queues a second email, whatever is replayed.
   */
  cause: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/**
 * The email's Message-ID (RFC 5322, without the angle brackets): a hash of the cause at the sender's
 * domain. Stable across crashes and replays, so a resend after a crash carries the same id and a
 * receiver can tell it is the same email.
 */
export function mailMessageId(cause: string, fromAddress: string, hash: (text: string) => string): string {
  const domain = fromAddress.slice(fromAddress.lastIndexOf('@') + 1) || 'localhost';
  return `${hash(cause)}@${domain}`;
}
