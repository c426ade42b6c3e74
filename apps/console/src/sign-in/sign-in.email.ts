import type { OutgoingMail } from '#platform/mail';

/** The email with a sign-in link; its cause is the link, so a retried request never mails it twice. */
export function signInEmail(email: string, link: string, tokenHash: string): OutgoingMail {
  return {
    cause: `${tokenHash}:sign-in`,
    to: [email],
    subject: 'Your sign-in link',
    text: [
      'Someone (we hope you) asked to sign in to the developer console with this address.',
      '',
      `Sign in: ${link}`,
      '',
      'The link works once, for 15 minutes. If you did not ask for it, ignore this email.',
    ].join('\n'),
    html: [
      '<p>Someone (we hope you) asked to sign in to the developer console with this address.</p>',
      `<p><a href="${link}">Sign in to the console</a></p>`,
      '<p>The link works once, for 15 minutes. If you did not ask for it, ignore this email.</p>',
    ].join('\n'),
  };
}
