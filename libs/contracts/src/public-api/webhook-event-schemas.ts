/**
 * JSON Schemas of the public webhook events (spec, Events; D4, D26): the envelope and each
 * type's data, exactly as receivers get them. The OpenAPI document's `webhooks` section is built from
 * these, and the end-to-end receivers validate every body they get against it.
 */
import { API_VERSION } from '../api-version';
import { APP_STATUSES } from '../app-status';
import { CHAT_MESSAGE_TYPES } from '../events/chat.events';
import { CONSENT_REASONS, CONSENT_SOURCES, CONSENT_STATUSES } from '../events/consent.events';
import { MESSAGE_FAILURE_REASONS } from '../events/messaging.events';
import { TEMPLATE_STATUSES } from '../templates';
import type { JsonSchema } from '../events/schema-builders';
import { APP_USER_ID_PATTERN } from '../ids';
import type { PublicEventType } from '../webhooks';
import { PUBLIC_API_EXAMPLES as EXAMPLE } from './resource-schemas';

const appUserId: JsonSchema = { type: 'string', pattern: APP_USER_ID_PATTERN.source, description: 'The user within this app.' };
const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });

function object(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return { type: 'object', properties, required: Object.keys(properties).filter((k) => !optional.includes(k)), additionalProperties: false };
}

interface EventSpec {
  component: string;
  summary: string;
  description: string;
  data: JsonSchema;
  example: Record<string, unknown>;
}

/** Each public event type: its component name, what it means, its data and an example of data. */
export const PUBLIC_EVENT_SPECS: Record<PublicEventType, EventSpec> = {
  'message.received': {
    component: 'MessageReceivedEvent',
    summary: 'A user sent the app a message',
    description: "A user's first message is also their opt-in: a consent.updated with source user_initiated comes with it.",
    data: object(
      {
        id: { type: 'string', description: 'Message id (msg_…); GET /messages/{id} shows it.' },
        from: appUserId,
        type: { type: 'string', enum: [...CHAT_MESSAGE_TYPES], description: 'Message type.' },
        text: { type: ['string', 'null'], description: 'Text or caption.' },
        media: {
          type: 'array',
          description: 'Attached files; fetch each with GET /media/{id}.',
          items: object({
            id: { type: 'string' },
            mimeType: { type: ['string', 'null'] },
            fileName: { type: 'string' },
            size: { type: 'integer', minimum: 0 },
          }),
        },
        context: {
          ...object({ messageId: { type: 'string', description: 'The message replied to.' } }),
          description: 'Present when the user replied to a message.',
        },
        timestamp: time('When the user sent it.'),
      },
      ['context'],
    ),
    example: { id: EXAMPLE.messageId, from: EXAMPLE.appUserId, type: 'text', text: 'Where is my order?', media: [], timestamp: EXAMPLE.at },
  },
  'message.status': {
    component: 'MessageStatusEvent',
    summary: 'A message the app sent changed state',
    description: 'sent when handed to the chat product, then delivered and read; failed with a reason when it cannot be delivered.',
    data: object(
      {
        id: { type: 'string', description: 'Message id.' },
        appUserId,
        status: { type: 'string', enum: ['sent', 'delivered', 'read', 'failed'], description: 'The new status.' },
        timestamp: time('When it changed.'),
        clientReference: { type: 'string', description: 'The value given at send.' },
        reason: { type: 'string', enum: [...MESSAGE_FAILURE_REASONS], description: 'Why it failed (status failed only).' },
      },
      ['clientReference', 'reason'],
    ),
    example: { id: EXAMPLE.messageId, appUserId: EXAMPLE.appUserId, status: 'delivered', timestamp: EXAMPLE.later, clientReference: 'order-1042' },
  },
  'consent.updated': {
    component: 'ConsentUpdatedEvent',
    summary: "A user's consent changed",
    description: 'After opted_out or blocked, sends to the user fail with consent_required. reason account_deleted means the account is gone.',
    data: object(
      {
        appUserId,
        status: { type: 'string', enum: [...CONSENT_STATUSES], description: 'The new status.' },
        source: { type: 'string', enum: [...CONSENT_SOURCES], description: 'How the user opted in.' },
        ref: { type: 'string', description: 'The opt-in link ref, for source opt_in_link.' },
        reason: { type: 'string', enum: [...CONSENT_REASONS], description: 'Why, when the platform moved it.' },
      },
      ['source', 'ref', 'reason'],
    ),
    example: { appUserId: EXAMPLE.appUserId, status: 'opted_in', source: 'opt_in_link', ref: 'spring-campaign' },
  },
  'app.status_changed': {
    component: 'AppStatusChangedEvent',
    summary: "The app's status changed",
    description: 'Approved, suspended, reinstated, rejected, or dropped to internal_live when verification was revoked.',
    data: object(
      {
        status: { type: 'string', enum: [...APP_STATUSES], description: 'The new status.' },
        previousStatus: { type: 'string', enum: [...APP_STATUSES], description: 'The status before.' },
        reason: { type: 'string', description: 'Why, when given.' },
      },
      ['reason'],
    ),
    example: { status: 'internal_live', previousStatus: 'sandbox' },
  },
  'template.status': {
    component: 'TemplateStatusEvent',
    summary: "A template's status changed",
    description:
      "A version was submitted for review (pending), approved or rejected. A sandbox app's versions are approved at once (one event, approved). Sends use a template only while its latest version is approved.",
    data: object(
      {
        id: { type: 'string', pattern: '^tpl_', description: 'The template (tpl_…).' },
        name: { type: 'string', description: 'Its name.' },
        language: { type: 'string', description: 'Its language, like en or en_US.' },
        status: { type: 'string', enum: [...TEMPLATE_STATUSES], description: 'The status of this version.' },
        reason: { type: 'string', description: "The reviewer's reason, when given." },
        version: { type: 'integer', minimum: 1, description: 'The version this status is about.' },
      },
      ['reason'],
    ),
    example: {
      id: 'tpl_01JH8Z6Q2W3E4R5T6Y7U8I9O0P',
      name: 'order_shipped',
      language: 'en',
      status: 'rejected',
      reason: 'Marketing text in a utility template.',
      version: 2,
    },
  },
  'webhook.test': {
    component: 'WebhookTestEvent',
    summary: 'A test event, sent by POST /webhooks/{id}/test',
    description: 'Sent only by the test operation, to that endpoint only.',
    data: object({
      message: { type: 'string', description: 'A human-readable note.' },
      subscriptionId: { type: 'string', description: 'The endpoint tested (we_…).' },
      nonce: { type: 'string', description: 'Random, unique per test.' },
    }),
    example: { message: 'This is a test event from the platform.', subscriptionId: EXAMPLE.endpointId, nonce: 'mX3k9QvT2bLp' },
  },
};

/** The envelope schema of one event type, with its data inline. */
export function publicEventSchema(type: PublicEventType): JsonSchema {
  const spec = PUBLIC_EVENT_SPECS[type];
  return {
    type: 'object',
    description: `${spec.summary}. ${spec.description}`,
    properties: {
      id: { type: 'string', pattern: '^evt_', description: 'Event id: the same across retries and replays; dedupe on it.' },
      type: { type: 'string', const: type },
      apiVersion: { type: 'string', description: 'The API version of the payload.' },
      created: { type: 'integer', description: 'Unix seconds.' },
      appId: { type: 'string', description: 'The app.' },
      data: spec.data,
    },
    required: ['id', 'type', 'apiVersion', 'created', 'appId', 'data'],
    additionalProperties: false,
    examples: [{ id: EXAMPLE.eventId, type, apiVersion: API_VERSION, created: 1_791_020_600, appId: EXAMPLE.appId, data: spec.example }],
  };
}

/**
 * The events API's answers (ADR 0223), beside the event schemas they list: GET /events/{id} answers
 * the `WebhookEvent` component (any event, exactly as delivered), GET /events a page of them.
 */
export function eventApiSchemas(): Record<string, JsonSchema> {
  const example = (publicEventSchema('message.status').examples as unknown[])[0];
  return {
    EventPage: {
      type: 'object',
      description: "A page of the app's events of the last 30 days, newest first; each exactly as its deliveries carry it.",
      properties: {
        data: { type: 'array', items: { $ref: '#/components/schemas/WebhookEvent' } },
        nextCursor: { type: ['string', 'null'], description: 'Give it as cursor for the next page; null on the last page.' },
      },
      required: ['data', 'nextCursor'],
      additionalProperties: false,
      examples: [{ data: [example], nextCursor: null }],
    },
  };
}
