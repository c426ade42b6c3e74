import type { EventOf } from '#platform/contracts';
import type { OutgoingMail } from '#platform/mail';
import { endpointDisabledEmail } from './endpoint-disabled.email';

/** A disabling older than this is history, not news: a console reading webhooks.events from the start mails nobody about it. */
export const ALERT_FRESHNESS_MS = 24 * 3600 * 1000;

export interface EndpointDisabledFacts {
  owners: string[];
  appName: string;
  consoleUrl: string;
  now: Date;
}

/**
 * D25's emails: one to each owner of the app, unless the disabling happened more than a day before
 * `now` (the event is being read again from history). Applying the event again queues nothing new:
 * each email's cause is the event and the owner (libs/mail).
 */
export function endpointDisabledEmails(event: EventOf<'WebhookEndpointDisabled'>, facts: EndpointDisabledFacts): OutgoingMail[] {
  if (facts.now.getTime() - new Date(event.occurredAt).getTime() > ALERT_FRESHNESS_MS) return [];
  return facts.owners.map((owner) => endpointDisabledEmail(event, owner, { consoleUrl: facts.consoleUrl, appName: facts.appName }));
}
