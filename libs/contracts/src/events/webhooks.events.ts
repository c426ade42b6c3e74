import { nullableStr, record, str, type JsonSchema } from './schema-builders';

/**
 * The one webhook-dispatcher event other services may consume (on `webhooks.events`, keyed by
 * endpointId): an endpoint was disabled after failing for 3 days (D25), for a mailer to tell the
 * app's creator. The endpoint's other events stay private to the dispatcher.
 */
export interface WebhookEndpointDisabled {
  type: 'WebhookEndpointDisabled';
  data: {
    endpointId: string;
    url: string;
    reason: string;
    failingSince: string;
    /** The last attempt's status or error; absent from events written before it was recorded. */
    lastError?: string | null;
  };
}

export const WEBHOOKS_EVENT_SCHEMAS: Record<WebhookEndpointDisabled['type'], JsonSchema> = {
  WebhookEndpointDisabled: record(
    {
      endpointId: str('The endpoint (`we_…`).'),
      url: str('Its URL.'),
      reason: str('Why, for humans.'),
      failingSince: str('Since when every delivery to it failed (ISO 8601, platform clock).', { format: 'date-time' }),
      lastError: nullableStr('The last attempt: the status it was answered with, or what went wrong.'),
    },
    ['lastError'],
  ),
};
