import type { OutgoingMail } from '#platform/mail';
import { escapeHtml } from '../web/html';

/** The invitation to join an app in the console; its cause is the invitation. */
export function invitationEmail(to: string, appName: string, invitedBy: string, link: string, tokenHash: string): OutgoingMail {
  return {
    cause: `${tokenHash}:invitation`,
    to: [to],
    subject: `You are invited to ${appName} in the developer console`,
    text: [
      `${invitedBy} invites you to ${appName} in the developer console.`,
      '',
      `Accept: ${link}`,
      '',
      'The link works once, for 7 days, and signs you in with this address. A newer invitation to this address replaces it.',
    ].join('\n'),
    html: [
      `<p>${escapeHtml(invitedBy)} invites you to ${escapeHtml(appName)} in the developer console.</p>`,
      `<p><a href="${link}">Accept the invitation</a></p>`,
      '<p>The link works once, for 7 days, and signs you in with this address. A newer invitation to this address replaces it.</p>',
    ].join('\n'),
  };
}
