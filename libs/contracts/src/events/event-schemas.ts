import { CHAT_OUTBOUND_EVENT_SCHEMAS, CHAT_USER_EVENT_SCHEMAS } from './chat.events';
import { CONSENT_EVENT_SCHEMAS } from './consent.events';
import { MESSAGING_EVENT_SCHEMAS } from './messaging.events';
import { TEMPLATE_EVENT_SCHEMAS } from './template.events';
import { MEDIA_EVENT_SCHEMAS } from './media.events';
import { GATEWAY_EVENT_SCHEMAS } from './gateway.events';
import { PROFILE_EVENT_SCHEMAS } from './profile.events';
import { WEBHOOKS_EVENT_SCHEMAS } from './webhooks.events';
import type { JsonSchema } from './schema-builders';

/** JSON Schema of every domain event's `data`, by event type. Consumers validate payloads against these. */
export const EVENT_DATA_SCHEMAS: Record<string, JsonSchema> = {
  ...PROFILE_EVENT_SCHEMAS,
  ...GATEWAY_EVENT_SCHEMAS,
  ...CHAT_USER_EVENT_SCHEMAS,
  ...CHAT_OUTBOUND_EVENT_SCHEMAS,
  ...CONSENT_EVENT_SCHEMAS,
  ...MESSAGING_EVENT_SCHEMAS,
  ...TEMPLATE_EVENT_SCHEMAS,
  ...MEDIA_EVENT_SCHEMAS,
  ...WEBHOOKS_EVENT_SCHEMAS,
};
