// Over 300 lines because it is a table: one JSON Schema per public resource, which the OpenAPI
// document, the SDK's types and the answer checks all read from this one place.
/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of every resource the public API answers with
 * (spec, "Resources and their fields"; D20, D21b, D23). The OpenAPI document is built from
 * these and the request DTOs; the end-to-end suite validates every answer it gets against the
 * document, so a field a service adds, renames or makes nullable without changing these fails it.
 * Each schema carries one example, shown in the reference and checked against the schema. Long because
 * it is one table: every resource of the spec, each beside its example.
 */
import { API_VERSION } from '../api-version';
import { APP_STATUSES, VERIFICATION_STATUSES } from '../app-status';
import { ERROR_CODES, PUBLIC_ERROR_CODES, type ErrorType } from '../error-codes';
import { CONSENT_SOURCES, CONSENT_STATUSES } from '../events/consent.events';
import { SENT_MESSAGE_TYPES } from '../events/messaging.events';
import { TEMPLATE_CATEGORIES, TEMPLATE_LIMITS, TEMPLATE_STATUSES } from '../templates';
import type { JsonSchema } from '../events/schema-builders';
import { MEDIA_KINDS } from '../media';
import { SCOPES } from '../scopes';
import { PUBLIC_EVENT_TYPES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_ENDPOINT_STATES } from '../webhooks';
import { APP_USER_ID_PATTERN } from '../ids';
import { MESSAGE_STATUSES } from '../rpc-operations';

const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const text = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const nullableText = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: ['string', 'null'], description, ...extra });
const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });
const nullableTime = (description: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', description });
const enumOf = (description: string, values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values], description });
const integer = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });

/** An object whose listed properties are all required unless named in `optional`; nothing else allowed. */
function object(description: string, properties: Record<string, JsonSchema>, example: unknown, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    description,
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
    examples: [example],
  };
}

const appUserIdPattern = APP_USER_ID_PATTERN.source;
const EXAMPLE = {
  appId: 'app_01JD3Q8X8ZK2V7T0M4B6N9C1RE',
  appUserId: 'u_7Hq2LxP9sKd3Vb1Nc5Zr8T',
  messageId: 'msg_01JD3QB2W5N8R3F6H9K2M4P7TS',
  mediaId: 'med_01JD3QA4Y7M1Q5T8W2E6R9U3IO',
  endpointId: 'we_01JD3QC9P2L5N8R1T4W7Z0B3DF',
  deliveryId: 'wd_01JD3QD6K9M2P5S8V1Y4B7E0GH',
  eventId: 'evt_01JD3QD6K9M2P5S8V1Y4B7E0GJ',
  requestId: 'req_01JD3QE3H6K9N2Q5T8W1Z4C7',
  at: '2026-10-14T09:30:00.000Z',
  later: '2026-10-14T09:30:02.000Z',
} as const;
export const PUBLIC_API_EXAMPLES = EXAMPLE;

const mediaFile = object(
  'A file attached to a message.',
  {
    id: text('Media id; fetch it with GET /media/{id}.'),
    mimeType: nullableText('MIME type, when known.'),
    fileName: text('File name.'),
    size: integer('Size in bytes.', { minimum: 0 }),
  },
  { id: EXAMPLE.mediaId, mimeType: 'image/png', fileName: 'receipt.png', size: 48213 },
);

const consent = object(
  "A user's consent for the app.",
  {
    appUserId: text('The user within this app.', { pattern: appUserIdPattern }),
    status: enumOf('Consent status.', CONSENT_STATUSES),
    source: enumOf('How the user opted in (the most recent opt-in, kept while opted out or blocked).', CONSENT_SOURCES),
    ref: nullableText('The opt-in link ref, for source opt_in_link.'),
    optedInAt: nullableTime('When the user last opted in.'),
    optedOutAt: nullableTime('When the user last stopped or blocked the app.'),
    updatedAt: time('Last change.'),
  },
  {
    appUserId: EXAMPLE.appUserId,
    status: 'opted_in',
    source: 'opt_in_link',
    ref: 'spring-campaign',
    optedInAt: EXAMPLE.at,
    optedOutAt: null,
    updatedAt: EXAMPLE.at,
  },
);

const windowSchema = object(
  "The reply window: open within 24 hours of the user's last message to the app.",
  {
    open: { type: 'boolean', description: 'True within 24 hours of the user’s last message.' },
    expiresAt: nullableTime('When it closes while open; null when closed.'),
  },
  { open: true, expiresAt: '2026-10-15T09:30:00.000Z' },
);

const media = object(
  'A media file an app uploaded or a user sent.',
  {
    id: text('Media id (med_…).'),
    source: enumOf('Who provided it.', ['app', 'user']),
    kind: enumOf('What it is, by MIME type.', MEDIA_KINDS),
    mimeType: text('MIME type.'),
    fileName: text('File name.'),
    size: integer('Size in bytes.', { minimum: 0 }),
    status: enumOf('Upload status.', ['pending_upload', 'ready']),
    url: nullableText('Presigned download URL, valid 1 hour; null until the bytes are uploaded.', { format: 'uri' }),
    urlExpiresAt: nullableTime('When url stops working; fetch the media again after.'),
    createdAt: time('When the media was created.'),
  },
  {
    id: EXAMPLE.mediaId,
    source: 'app',
    kind: 'image',
    mimeType: 'image/png',
    fileName: 'receipt.png',
    size: 48213,
    status: 'ready',
    url: 'https://media.example.com/platform-media/med_01JD3QA4Y7M1Q5T8W2E6R9U3IO?X-Amz-Expires=3600&X-Amz-Signature=5d41402abc4b2a76',
    urlExpiresAt: '2026-10-14T10:30:00.000Z',
    createdAt: EXAMPLE.at,
  },
);

const upload = object(
  'Where and how to upload the bytes: PUT them to url with exactly these headers within 15 minutes.',
  {
    url: text('Target of the byte upload.', { format: 'uri' }),
    method: enumOf('Always PUT.', ['PUT']),
    headers: { type: 'object', description: 'Headers to send with the PUT.', additionalProperties: { type: 'string' } },
    expiresAt: time('When the upload URL stops working.'),
  },
  {
    url: 'https://media.example.com/platform-media/med_01JD3QA4Y7M1Q5T8W2E6R9U3IO?X-Amz-Expires=3600&X-Amz-Signature=5d41402abc4b2a76',
    method: 'PUT',
    headers: { 'Content-Type': 'image/png', 'Content-Length': '48213' },
    expiresAt: '2026-10-14T09:45:00.000Z',
  },
);

const endpointProperties: Record<string, JsonSchema> = {
  id: text('Endpoint id (we_…).'),
  url: text('The https URL deliveries go to.', { format: 'uri' }),
  events: { type: 'array', description: 'Event types it receives.', items: enumOf('Event type.', PUBLIC_EVENT_TYPES), uniqueItems: true },
  state: enumOf('pending_verification until the handshake succeeds; disabled after 3 days of failed deliveries.', WEBHOOK_ENDPOINT_STATES),
  createdAt: time('When it was added.'),
  updatedAt: time('Last change.'),
  verifiedAt: nullableTime('Last successful handshake.'),
  disabledAt: nullableTime('When it was disabled; null unless disabled.'),
  lastVerificationError: nullableText('Why the last handshake failed; null after a success.'),
};
const endpointExample = {
  id: EXAMPLE.endpointId,
  url: 'https://hooks.example.com/platform',
  events: ['message.received', 'message.status'],
  state: 'enabled',
  createdAt: EXAMPLE.at,
  updatedAt: EXAMPLE.at,
  verifiedAt: EXAMPLE.at,
  disabledAt: null,
  lastVerificationError: null,
};

const delivery = object(
  'One delivery of an event to an endpoint, with its retries.',
  {
    id: text('Delivery id (wd_…).'),
    eventId: text('The event delivered (evt_…); the same across retries and replays.'),
    eventType: enumOf('Event type.', PUBLIC_EVENT_TYPES),
    subscriptionId: text('The endpoint (we_…).'),
    status: enumOf('pending while being tried; delivered or failed at the end.', WEBHOOK_DELIVERY_STATUSES),
    attempts: integer('Attempts made so far.', { minimum: 0 }),
    lastAttemptAt: nullableTime('When the last attempt ended.'),
    nextAttemptAt: nullableTime('When the next attempt is due; null unless pending.'),
    lastResponseStatus: { type: ['integer', 'null'], description: "The endpoint's last HTTP status; null without an answer." },
    lastError: nullableText('Why the last attempt failed (timeout, network error, status, refused address).'),
    createdAt: time('When the delivery was created.'),
    deliveredAt: nullableTime('When a 2xx answer came.'),
    failedAt: nullableTime('When it was given up.'),
  },
  {
    id: EXAMPLE.deliveryId,
    eventId: EXAMPLE.eventId,
    eventType: 'message.status',
    subscriptionId: EXAMPLE.endpointId,
    status: 'delivered',
    attempts: 1,
    lastAttemptAt: EXAMPLE.later,
    nextAttemptAt: null,
    lastResponseStatus: 200,
    lastError: null,
    createdAt: EXAMPLE.at,
    deliveredAt: EXAMPLE.later,
    failedAt: null,
  },
);

const profileExample = {
  appId: EXAMPLE.appId,
  handle: 'acme-store',
  displayName: 'Acme Store',
  avatarUrl: null,
  about: 'Order updates and support.',
  websiteUrl: 'https://acme.example.com',
  domain: 'acme.example.com',
  category: 'retail',
  verificationStatus: 'verified',
  verifiedAt: EXAMPLE.at,
  updatedAt: EXAMPLE.at,
};

const templateRef = object(
  'Which template version a message was rendered from.',
  {
    id: text('Template id (tpl_…).'),
    name: text('Its name.'),
    language: text('Its language.'),
    version: integer('The version rendered.', { minimum: 1 }),
  },
  { id: 'tpl_01JD3QF1A4D7G0J3M6P9S2V5Y8', name: 'order_shipped', language: 'en', version: 1 },
);
const templatePart = (description: string, min: number, max: number) =>
  object(description, { text: text(`${min}–${max} characters.`, { minLength: min, maxLength: max }) }, { text: 'Hello' });
const templateComponents = object(
  'A template’s text: {{variable}} placeholders in the header and the body; the footer is fixed.',
  {
    header: templatePart('Optional header, may hold variables.', 1, TEMPLATE_LIMITS.headerMax),
    body: templatePart('The body, may hold variables.', TEMPLATE_LIMITS.bodyMin, TEMPLATE_LIMITS.bodyMax),
    footer: templatePart('Optional footer, without variables.', 1, TEMPLATE_LIMITS.footerMax),
  },
  { body: { text: 'Hi {{first_name}}, order {{order_id}} has shipped.' }, footer: { text: 'Reply STOP to opt out.' } },
  ['header', 'footer'],
);
const template = object(
  'A message template: sends of type template render its approved version.',
  {
    id: text('Template id (tpl_…).'),
    name: text('Name, unique per language within the app.', { pattern: '^[a-z0-9_]{1,512}$' }),
    language: text('Language code with an optional region, like en or en_US.'),
    category: enumOf('What the template is for.', TEMPLATE_CATEGORIES),
    components: ref('TemplateComponents'),
    variables: { type: 'array', description: 'Its variables, in order of first appearance.', items: { type: 'string' } },
    status: enumOf("The current version's review: pending, approved or rejected.", TEMPLATE_STATUSES),
    rejectedReason: nullableText("The reviewer's reason when the current version was rejected."),
    version: integer('1 when created, + 1 for each change.', { minimum: 1 }),
    createdAt: time('When it was created.'),
    updatedAt: time('When it last changed.'),
  },
  {
    id: 'tpl_01JD3QF1A4D7G0J3M6P9S2V5Y8',
    name: 'order_shipped',
    language: 'en',
    category: 'utility',
    components: (templateComponents.examples as object[])[0],
    variables: ['first_name', 'order_id'],
    status: 'approved',
    rejectedReason: null,
    version: 1,
    createdAt: EXAMPLE.at,
    updatedAt: EXAMPLE.at,
  },
);

const errorTypes: ErrorType[] = [...new Set(PUBLIC_ERROR_CODES.map((c) => ERROR_CODES[c].type))];

/** Every resource schema of the public API, by component name. */
export const PUBLIC_RESOURCE_SCHEMAS: Record<string, JsonSchema> = {
  Message: object(
    'A message the app sent or received.',
    {
      id: text('Message id (msg_…).'),
      direction: enumOf('outbound: the app sent it; inbound: a user sent it.', ['outbound', 'inbound']),
      appUserId: nullableText('The user.', { pattern: appUserIdPattern }),
      type: enumOf('Message type; template: a text rendered from one of the app’s templates.', SENT_MESSAGE_TYPES),
      text: nullableText('Text, or a media caption; for a template message the rendered text.'),
      media: { type: 'array', description: 'Attached files.', items: ref('MediaFile') },
      status: enumOf('accepted until handed to the chat product; then sent, delivered, read, or failed. Inbound messages are received.', MESSAGE_STATUSES),
      clientReference: nullableText('The value given at send.'),
      createdAt: time('When it was accepted or received.'),
      deliveredAt: nullableTime('When it reached a device.'),
      readAt: nullableTime('When the user read it.'),
      template: {
        oneOf: [ref('TemplateRef'), { type: 'null' }],
        description: 'For a template message, the template version it was rendered from; else null.',
      },
    },
    {
      id: EXAMPLE.messageId,
      direction: 'outbound',
      appUserId: EXAMPLE.appUserId,
      type: 'text',
      text: 'Your order has shipped.',
      media: [],
      status: 'delivered',
      clientReference: 'order-1042',
      createdAt: EXAMPLE.at,
      deliveredAt: EXAMPLE.later,
      readAt: null,
      template: null,
    },
  ),
  MediaFile: mediaFile,
  // Message templates (architecture section 13).
  TemplateRef: templateRef,
  TemplateComponents: templateComponents,
  Template: template,
  TemplatePage: object(
    'A page of templates, newest first.',
    {
      data: { type: 'array', items: ref('Template') },
      nextCursor: nullableText('Give it as cursor for the next page; null on the last page.'),
    },
    { data: [(template.examples as object[])[0]], nextCursor: null },
  ),
  SendAcceptance: object(
    'The send was accepted; its progress arrives as message.status events.',
    {
      id: text('Message id (msg_…).'),
      status: enumOf('Always accepted.', ['accepted']),
      appUserId: text('The recipient.', { pattern: appUserIdPattern }),
      type: enumOf('Message type.', SENT_MESSAGE_TYPES),
      createdAt: time('When it was accepted.'),
      clientReference: nullableText('The value given, echoed in message.status events.'),
    },
    { id: EXAMPLE.messageId, status: 'accepted', appUserId: EXAMPLE.appUserId, type: 'text', createdAt: EXAMPLE.at, clientReference: 'order-1042' },
  ),
  Media: media,
  UploadInstruction: upload,
  CreateMediaResponse: object(
    'The new media record and where to upload its bytes.',
    { media: ref('Media'), upload: ref('UploadInstruction') },
    { media: { ...(media.examples as object[])[0], status: 'pending_upload', url: null, urlExpiresAt: null }, upload: (upload.examples as object[])[0] },
  ),
  Consent: consent,
  Window: windowSchema,
  UserConsent: object(
    "One user's consent and reply window.",
    { appUserId: text('The user.', { pattern: appUserIdPattern }), consent: ref('Consent'), window: ref('Window') },
    { appUserId: EXAMPLE.appUserId, consent: (consent.examples as object[])[0], window: (windowSchema.examples as object[])[0] },
  ),
  ConsentPage: object(
    'A page of consents, most recently changed first.',
    {
      data: { type: 'array', items: ref('Consent') },
      nextCursor: nullableText('Give it as cursor for the next page; null on the last page.'),
    },
    { data: [(consent.examples as object[])[0]], nextCursor: 'eyJ1IjoiMjAyNi0xMC0xNFQwOTozMDowMC4wMDBaIn0' },
  ),
  OptInLink: object(
    'A signed link to the business profile; opening it never opts the user in, tapping Allow does.',
    {
      url: text('The link to share.', { format: 'uri' }),
      token: text('The signed token inside the link.'),
      ref: nullableText('Echoed in consent.updated when a user opts in through the link.'),
      expiresAt: time('When the link stops working.'),
    },
    {
      url: 'https://profiles.example.com/acme-store?optin=eyJhIjoiYXBwXzAxIn0.c2lnbmF0dXJl',
      token: 'eyJhIjoiYXBwXzAxIn0.c2lnbmF0dXJl',
      ref: 'spring-campaign',
      expiresAt: '2026-11-13T09:30:00.000Z',
    },
  ),
  BusinessProfile: object(
    "The app's public business profile.",
    {
      appId: text('The app.'),
      handle: text('The app’s handle.'),
      displayName: text('Name shown to users.'),
      avatarUrl: nullableText('Avatar image URL, usable without auth for at least 1 hour after each read.', { format: 'uri' }),
      about: nullableText('About text.'),
      websiteUrl: nullableText('Website.', { format: 'uri' }),
      domain: nullableText('Host of websiteUrl.'),
      category: nullableText('Category.'),
      verificationStatus: enumOf('Business verification.', VERIFICATION_STATUSES),
      verifiedAt: nullableTime('When it was verified.'),
      updatedAt: time('Last change.'),
    },
    profileExample,
  ),
  PingResult: object(
    'The key is valid; what it can do.',
    {
      ok: { type: 'boolean', const: true, description: 'Always true.' },
      appId: text('The key’s app.'),
      appStatus: enumOf('The app’s status on the access ladder.', APP_STATUSES),
      environment: enumOf('The key’s environment.', ['sandbox', 'live']),
      scopes: { type: 'array', description: 'The key’s scopes.', items: enumOf('Scope.', SCOPES) },
      apiVersion: text('The API version.', { const: API_VERSION }),
      requestId: text('Equals the Svc-Request-Id header.'),
      time: time('The platform’s time.'),
    },
    {
      ok: true,
      appId: EXAMPLE.appId,
      appStatus: 'sandbox',
      environment: 'sandbox',
      scopes: [...SCOPES],
      apiVersion: API_VERSION,
      requestId: EXAMPLE.requestId,
      time: EXAMPLE.at,
    },
  ),
  WebhookEndpoint: object('A webhook endpoint; its signing secret is never part of it.', endpointProperties, endpointExample),
  WebhookEndpointWithSecret: object(
    'The endpoint just added, with its signing secret: shown this once.',
    { ...endpointProperties, secret: text('The signing secret (whsec_…); keep it safe.', { pattern: '^whsec_[0-9A-Za-z]{32}$' }) },
    { ...endpointExample, secret: 'whsec_4Xk9Qm2Zp7Lr5Tb1Vc8Nw3Hy6Jd0Fs2A' },
  ),
  WebhookEndpointList: object(
    'The app’s webhook endpoints, oldest first.',
    { data: { type: 'array', items: ref('WebhookEndpoint'), maxItems: 5 } },
    { data: [endpointExample] },
  ),
  WebhookTestAccepted: object(
    'A webhook.test event is on its way to the endpoint.',
    { deliveryId: text('The delivery (wd_…).'), eventId: text('The event (evt_…).') },
    { deliveryId: EXAMPLE.deliveryId, eventId: EXAMPLE.eventId },
  ),
  RotatedSecret: object(
    'The new signing secret; the previous one keeps signing beside it until previousSecretExpiresAt.',
    {
      secret: text('The new signing secret (whsec_…), shown this once.', { pattern: '^whsec_[0-9A-Za-z]{32}$' }),
      previousSecretExpiresAt: time('When the previous secret stops signing (24 hours).'),
    },
    { secret: 'whsec_9Tb1Vc8Nw3Hy6Jd0Fs2A4Xk9Qm2Zp7Lr', previousSecretExpiresAt: '2026-10-15T09:30:00.000Z' },
  ),
  WebhookRecoveryAccepted: object(
    'The recovery is on its way: one new delivery for each event since `since` that the endpoint subscribes to and has not received.',
    { recovered: integer('Deliveries created (0 when the endpoint missed nothing).', { minimum: 0 }) },
    { recovered: 12 },
  ),
  WebhookDelivery: delivery,
  WebhookDeliveryPage: object(
    'A page of deliveries, newest first.',
    { data: { type: 'array', items: ref('WebhookDelivery') }, nextCursor: nullableText('Give it as cursor for the next page; null on the last page.') },
    { data: [(delivery.examples as object[])[0]], nextCursor: null },
  ),
  ErrorCode: { type: 'string', enum: [...PUBLIC_ERROR_CODES], description: 'Stable error code: branch on it.' },
  ErrorDetail: object(
    'One failing field of an invalid_request.',
    { field: text('Dotted path of the field, e.g. to.appUserId.'), issue: text('What is wrong with it.') },
    { field: 'to.appUserId', issue: 'must match ^u_[0-9A-Za-z]{22}$' },
  ),
  ErrorEnvelope: object(
    'Every non-2xx answer.',
    {
      error: object(
        'The error.',
        {
          code: ref('ErrorCode'),
          message: text('For humans; may change.'),
          type: enumOf('Error type.', errorTypes),
          requestId: text('Equals the Svc-Request-Id header.'),
          docUrl: text('Where the code is explained.', { format: 'uri' }),
          details: { type: 'array', description: 'Failing fields (invalid_request only).', items: ref('ErrorDetail') },
        },
        {
          code: 'invalid_request',
          message: 'The request is invalid.',
          type: 'invalid_request_error',
          requestId: EXAMPLE.requestId,
          docUrl: 'https://docs.example.com/platform/errors#invalid_request',
          details: [{ field: 'to.appUserId', issue: 'must match ^u_[0-9A-Za-z]{22}$' }],
        },
        ['details'],
      ),
    },
    {
      error: {
        code: 'consent_required',
        message: 'The user has not opted in to this app.',
        type: 'permission_error',
        requestId: EXAMPLE.requestId,
        docUrl: 'https://docs.example.com/platform/errors#consent_required',
      },
    },
  ),
};
