import type { EventOf } from '#platform/contracts';
import type { OutgoingMail } from '#platform/mail';
import { escapeHtml } from '../web/html';

export interface EndpointDisabledEmailContext {
  /** The console's address (CONSOLE_URL), for the link to the endpoint's page. */
  consoleUrl: string;
  appName: string;
}

/**
 * D25's email to one owner: which endpoint, since when it failed, the last error and how to
 * re-verify. Its cause is the event and the owner, so each owner gets it once per disabling.
 */
export function endpointDisabledEmail(event: EventOf<'WebhookEndpointDisabled'>, owner: string, context: EndpointDisabledEmailContext): OutgoingMail {
  const { endpointId, url, failingSince } = event.data;
  const lastError = event.data.lastError ?? 'not recorded';
  const page = `${context.consoleUrl.replace(/\/+$/, '')}/apps/${event.appId}/webhooks`;
  const since = new Date(failingSince).toUTCString();
  const text = [
    `Your webhook endpoint ${url} (${endpointId}) of ${context.appName} has been disabled.`,
    '',
    `Every delivery to it has failed since ${since}, for 3 days. The last error: ${lastError}.`,
    'No more events are sent to it until it is verified again.',
    '',
    'To turn it back on, fix the endpoint, then verify it again: in the console on the endpoint’s page,',
    `${page}`,
    `or through the API: POST /platform/v1/webhooks/${endpointId}/verify.`,
  ].join('\n');
  const html = [
    `<p>Your webhook endpoint <code>${escapeHtml(url)}</code> (<code>${escapeHtml(endpointId)}</code>) of ${escapeHtml(context.appName)} has been disabled.</p>`,
    `<p>Every delivery to it has failed since ${escapeHtml(since)}, for 3 days. The last error: ${escapeHtml(lastError)}.<br>No more events are sent to it until it is verified again.</p>`,
    `<p>To turn it back on, fix the endpoint, then verify it again: on <a href="${escapeHtml(page)}">the endpoint’s page in the console</a>, or through the API: <code>POST /platform/v1/webhooks/${escapeHtml(endpointId)}/verify</code>.</p>`,
  ].join('\n');
  return { cause: `${event.eventId}:endpoint-disabled:${owner}`, to: [owner], subject: `Webhook endpoint disabled: ${url}`, text, html };
}
