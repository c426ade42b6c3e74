// Over 300 lines because the document is one tree built in one pass: paths, bodies, answers and
// refusals refer to each other's components, and splitting them would scatter the references.
/**
 * The OpenAPI 3.1 document of the public API, built from the code's own definitions: the route table
 * (paths, methods, scopes, query specs, idempotency), the class-validator DTOs (request bodies), the
 * resource and event schemas of libs/contracts (answers, webhooks) and the error-code table. Nothing
 * here is a second copy of a rule: a route, field or code changed in code changes the document.
 * Over 300 lines because the document is built in one pass whose parts (paths, components, webhooks,
 * error table) share one registry of component schemas.
 */
import {
  API_VERSION,
  ERROR_CODES,
  PUBLIC_ERROR_CODES,
  PUBLIC_EVENT_SPECS,
  PUBLIC_EVENT_TYPES,
  PUBLIC_RESOURCE_SCHEMAS,
  eventApiSchemas,
  publicEventSchema,
  type ErrorCode,
  type JsonSchema,
} from '#platform/contracts';
import { errorEnvelope } from '#platform/errors';
import { BODY_METHODS } from '../http/body-reader';
import { queryParamSchema } from '../http/query-params';
import { PATH_ID_MAX_LENGTH, type PublicRoute } from '../public-api/public-route';
import { requestSchemas } from './request-schemas';

export interface OpenApiResponse {
  description: string;
  'x-error-codes'?: ErrorCode[];
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: JsonSchema; example?: unknown; examples?: Record<string, unknown> }>;
}
export type OpenApiOperation = Record<string, unknown> & { operationId: string; responses: Record<string, OpenApiResponse> };
export type OpenApiDocument = Record<string, unknown> & {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: Record<string, unknown> & { schemas: Record<string, JsonSchema> };
};

export interface OpenApiOptions {
  /** `{DOCS_URL}`: the base of every error's docUrl. */
  docsUrl: string;
  /** Default request rate and burst, shown in the description. */
  rateLimit: { rps: number; burst: number };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const EXAMPLE_REQUEST_ID = 'req_01JD3QE3H6K9N2Q5T8W1Z4C7';

/**
 * Refusals the pipeline gives every route, whatever it is (architecture section 3); request_timeout and
 * headers_too_large come from the HTTP parser's limits, before any route is known.
 */
const PIPELINE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'invalid_api_key',
  'app_suspended',
  'key_environment_mismatch',
  'request_timeout',
  'headers_too_large',
  'rate_limited',
  'internal_error',
];
const BODY_ERRORS: readonly ErrorCode[] = ['payload_too_large', 'unsupported_media_type', 'invalid_json'];
const IDEMPOTENCY_ERRORS: readonly ErrorCode[] = ['idempotency_key_required', 'idempotency_in_progress', 'idempotency_key_reused'];

export function buildOpenApiDocument(routes: PublicRoute[], options: OpenApiOptions): OpenApiDocument {
  const requests = requestSchemas(routes.flatMap((r) => (r.body ? [r.body] : [])));
  const eventSchemas = Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => [PUBLIC_EVENT_SPECS[type].component, publicEventSchema(type)]));
  const schemas: Record<string, JsonSchema> = {
    ...PUBLIC_RESOURCE_SCHEMAS,
    ...requests.schemas,
    ...eventSchemas,
    WebhookEvent: {
      description: 'Any public event.',
      oneOf: PUBLIC_EVENT_TYPES.map((type) => ref(PUBLIC_EVENT_SPECS[type].component)),
      discriminator: {
        propertyName: 'type',
        mapping: Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => [type, `#/components/schemas/${PUBLIC_EVENT_SPECS[type].component}`])),
      },
      // GET /events/{id} answers it: its example is one event's.
      examples: publicEventSchema('message.status').examples,
    },
    ...eventApiSchemas(),
  };
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route, (route.body && requests.names.get(route.body)) ?? null);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Business Messaging Platform API',
      version: API_VERSION,
      summary: 'Send messages to users who opted in; receive their replies, receipts and consent changes as signed webhooks.',
      description: overview(options),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: '/platform/v1', description: 'This deployment (the document is served from its base address).' }],
    security: [{ apiKey: [] }],
    // Events is the webhooks' section as well as the events API's.
    tags: [...new Set([...routes.map((r) => r.doc.tag), 'Events'])].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? name })),
    paths,
    webhooks: Object.fromEntries(PUBLIC_EVENT_TYPES.map((type) => [type, { post: webhookOperation(type) }])),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'qk_sb_… (sandbox) or qk_live_… (live) and 32 base62 characters',
          description: 'An app API key as `Authorization: Bearer <API_KEY>`. Each operation lists the scope it needs in `x-scopes`.',
        },
      },
      headers: HEADERS,
      examples: errorExamples(options),
      parameters: {
        ...WEBHOOK_HEADER_PARAMETERS,
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description:
            'At most 255 printable ASCII characters. The same key with the same body within 24 hours replays the first answer; with another body it is 422 idempotency_key_reused.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
          example: 'order-1042-shipped',
        },
        SvcVersion: {
          name: 'Svc-Version',
          in: 'header',
          required: false,
          description: 'The API version the client speaks; anything but a supported version is 400 invalid_request.',
          schema: { type: 'string', enum: [API_VERSION] },
        },
      },
      schemas,
    },
    'x-error-codes': PUBLIC_ERROR_CODES.map((code) => ({
      code,
      status: ERROR_CODES[code].status,
      type: ERROR_CODES[code].type,
      message: ERROR_CODES[code].message,
    })),
  };

  function operation(route: PublicRoute, bodyName: string | null): OpenApiOperation {
    const { doc } = route;
    const scopes = route.scope ? [route.scope] : [];
    const parameters: unknown[] = [];
    for (const [name, description] of Object.entries(doc.pathParams ?? {})) {
      parameters.push({ name, in: 'path', required: true, description, schema: { type: 'string', minLength: 1, maxLength: PATH_ID_MAX_LENGTH } });
    }
    for (const param of route.query?.params ?? [])
      parameters.push({ name: param.name, in: 'query', required: false, description: param.description, schema: queryParamSchema(param) });
    for (const [name, description] of Object.entries(doc.requestHeaders ?? {}))
      parameters.push({ name, in: 'header', required: false, description, schema: { type: 'string' } });
    if (route.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    parameters.push({ $ref: '#/components/parameters/SvcVersion' });

    const op: OpenApiOperation = {
      operationId: doc.operationId,
      summary: doc.summary,
      description: [doc.description, route.scope ? `Scope: \`${route.scope}\`.` : 'Needs no scope: any valid key.'].filter(Boolean).join('\n\n'),
      tags: [doc.tag],
      'x-scopes': scopes,
      parameters,
      responses: { [String(doc.success.status)]: successResponse(route, schemas), ...errorResponses(route) },
    };
    if (bodyName) {
      const schema = requests.schemas[bodyName];
      op.requestBody = {
        required: ((schema.required as string[] | undefined) ?? []).length > 0,
        content: { 'application/json': { schema: ref(bodyName), example: (schema.examples as unknown[] | undefined)?.[0] } },
      };
    }
    return op;
  }
}

function successResponse(route: PublicRoute, schemas: Record<string, JsonSchema>): OpenApiResponse {
  const { success } = route.doc;
  const headers: Record<string, unknown> = { ...commonHeaderRefs() };
  if (route.idempotent) headers['Idempotent-Replayed'] = { $ref: '#/components/headers/IdempotentReplayed' };
  if (success.mediaType)
    return {
      description: success.description,
      headers,
      content: { [success.mediaType.type]: { schema: success.mediaType.schema, example: success.mediaType.example } },
    };
  if (!success.schema) return { description: success.description, headers };
  const example = (schemas[success.schema]?.examples as unknown[] | undefined)?.[0];
  return { description: success.description, headers, content: { 'application/json': { schema: ref(success.schema), example } } };
}

/** Every code a route can answer with, from its shape and its own list, grouped by HTTP status. */
export function errorCodesOf(route: PublicRoute): ErrorCode[] {
  const codes = new Set<ErrorCode>(PIPELINE_ERRORS);
  if (route.scope) codes.add('insufficient_scope');
  if (BODY_METHODS.has(route.method)) BODY_ERRORS.forEach((c) => codes.add(c));
  if (route.idempotent) IDEMPOTENCY_ERRORS.forEach((c) => codes.add(c));
  route.doc.errors?.forEach((c) => codes.add(c));
  return PUBLIC_ERROR_CODES.filter((c) => codes.has(c));
}

function errorResponses(route: PublicRoute): Record<string, OpenApiResponse> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  const responses: Record<string, OpenApiResponse> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: Record<string, unknown> = { ...commonHeaderRefs() };
    if (status === 429) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    responses[String(status)] = {
      description: codes.map((c) => `\`${c}\``).join(', '),
      // The codes this operation can give with this status: the end-to-end suite holds every answer to it.
      'x-error-codes': codes,
      headers,
      content: {
        'application/json': {
          schema: ref('ErrorEnvelope'),
          examples: Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }])),
        },
      },
    };
  }
  return responses;
}

/** One example envelope per error code, referenced by every response that can give it. */
function errorExamples(options: OpenApiOptions): Record<string, unknown> {
  return Object.fromEntries(
    PUBLIC_ERROR_CODES.map((code) => [
      code,
      {
        summary: ERROR_CODES[code].message,
        value: errorEnvelope({
          code,
          message: ERROR_CODES[code].message,
          requestId: EXAMPLE_REQUEST_ID,
          docsUrl: options.docsUrl,
          details: code === 'invalid_request' ? [{ field: 'to.appUserId', issue: 'must match ^u_[0-9A-Za-z]{22}$' }] : undefined,
        }),
      },
    ]),
  );
}

function webhookOperation(type: (typeof PUBLIC_EVENT_TYPES)[number]) {
  const spec = PUBLIC_EVENT_SPECS[type];
  const component = spec.component;
  return {
    operationId: `on${component.replace(/Event$/, '')}`,
    summary: spec.summary,
    description: `${spec.description}\n\nPOSTed to every enabled endpoint subscribed to \`${type}\`. Verify \`Svc-Signature\` (or the Standard Webhooks headers) on the raw body before trusting it, and dedupe on the event id.`,
    tags: ['Events'],
    security: [],
    parameters: WEBHOOK_DELIVERY_HEADERS.map((name) => ({ $ref: `#/components/parameters/${name}` })),
    requestBody: { required: true, content: { 'application/json': { schema: ref(component), example: (publicEventSchema(type).examples as unknown[])[0] } } },
    responses: {
      '200': { description: 'Any 2xx within 10 seconds acknowledges the event.' },
      '500': { description: 'A timeout, network error, 408, 429 or 5xx is retried (about 10 s, doubling, capped at 1 hour, for 24 hours); other 4xx are not.' },
    },
  };
}

/** What each section of the reference is about. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Keys: 'Check what a key can do.',
  Messages: 'Send messages to users who opted in, and read messages sent and received.',
  Media: 'Upload files to send, and fetch files users sent.',
  Consents: "Users' consent and reply windows.",
  'Opt-in links': 'Links that let users opt in from the business profile.',
  'Business profile': 'What users see of the business.',
  'Webhook endpoints': 'Where events are delivered, their handshake and signing secrets.',
  'Webhook deliveries': 'Every delivery of an event to an endpoint, and replays.',
  Templates: 'Message templates: reviewed texts with variables, sent as messages of type template.',
  Events: 'What happened to the app: POSTed to its webhook endpoints, signed, and listed for 30 days by GET /events.',
};

const commonHeaderRefs = () => ({
  'Svc-Request-Id': { $ref: '#/components/headers/SvcRequestId' },
  'Svc-Version': { $ref: '#/components/headers/SvcVersion' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
});

const HEADERS = {
  SvcRequestId: {
    description: 'This request’s id (req_ and 24 characters); errors repeat it as error.requestId.',
    schema: { type: 'string', pattern: '^req_[0-9A-Za-z]{24}$' },
  },
  SvcVersion: { description: 'The API version of the answer.', schema: { type: 'string', const: API_VERSION } },
  RateLimitLimit: {
    description: 'Requests the app may burst (on a 429 for failed authentication: the failures an address may burst).',
    schema: { type: 'integer' },
  },
  RateLimitRemaining: { description: 'Requests left in the app’s bucket now.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  IdempotentReplayed: {
    description: '`true` when this answer replays the first one given for the same Idempotency-Key and body.',
    schema: { type: 'string', const: 'true' },
  },
};

const WEBHOOK_DELIVERY_HEADERS = [
  'SvcSignature',
  'SvcEventId',
  'SvcEventType',
  'SvcDeliveryId',
  'SvcDeliveryAttempt',
  'WebhookId',
  'WebhookTimestamp',
  'WebhookSignature',
];

/** Header parameters of a webhook delivery, added to components.parameters. */
export const WEBHOOK_HEADER_PARAMETERS = {
  SvcSignature: headerParam(
    'Svc-Signature',
    '`t=<unix seconds>,v1=<hex>`: v1 is the lowercase hex HMAC-SHA256 of `<t>.` and the raw body, keyed with the signing secret (whsec_… included). Two v1 values during a rotation; either matching is valid. Refuse a t more than 5 minutes from your clock.',
    '^t=\\d+(,v1=[0-9a-f]{64})+$',
  ),
  SvcEventId: headerParam('Svc-Event-Id', 'The event id (evt_…); dedupe on it.', '^evt_'),
  SvcEventType: headerParam('Svc-Event-Type', 'The event type.'),
  SvcDeliveryId: headerParam('Svc-Delivery-Id', 'This delivery (wd_…); retries keep the same event id.'),
  SvcDeliveryAttempt: { ...headerParam('Svc-Delivery-Attempt', 'Attempt number, from 1.'), schema: { type: 'integer', minimum: 1 } },
  WebhookId: headerParam('webhook-id', 'Standard Webhooks: the event id.'),
  WebhookTimestamp: { ...headerParam('webhook-timestamp', 'Standard Webhooks: the t of Svc-Signature.'), schema: { type: 'integer' } },
  WebhookSignature: headerParam(
    'webhook-signature',
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the base64 decoding of the secret after whsec_; space-separated during a rotation.',
  ),
};

function headerParam(name: string, description: string, pattern?: string) {
  return { name, in: 'header', required: true, description, schema: { type: 'string', ...(pattern ? { pattern } : {}) } };
}

function overview(options: OpenApiOptions): string {
  return [
    'Every request authenticates with an app API key: `Authorization: Bearer <API_KEY>`. Sandbox keys (`qk_sb_…`) reach accepted testers only; live keys (`qk_live_…`) work once the app is approved. Keys get every scope unless created with fewer; each operation lists its scope in `x-scopes`.',
    `Every answer carries \`Svc-Request-Id\` and \`Svc-Version: ${API_VERSION}\`, and \`RateLimit-Limit\`/\`RateLimit-Remaining\`. Each app may make about ${options.rateLimit.rps} requests a second (bursts of ${options.rateLimit.burst}) whichever servers answer them; beyond that 429 \`rate_limited\` with \`Retry-After\`. Repeated failed authentication from one client address is refused the same way, before the key is checked; a key already used successfully keeps working.`,
    'Every refusal is the error envelope `{error: {code, message, type, requestId, docUrl}}`; branch on `code` (the table `x-error-codes` lists each code with its status and type). A 500 is safe to retry with the same `Idempotency-Key`.',
    'POST /messages needs an `Idempotency-Key`. Request bodies are JSON (at most 1 MiB) and refuse unknown properties.',
    `Events reach the app's HTTPS endpoints as signed POSTs (see Webhooks). Signatures: \`Svc-Signature\` (Stripe's scheme) and the Standard Webhooks headers. Error pages: ${options.docsUrl}/errors.`,
    [
      '## Error codes',
      '',
      '| code | HTTP | type | meaning |',
      '|---|---|---|---|',
      ...PUBLIC_ERROR_CODES.map((c) => `| \`${c}\` | ${ERROR_CODES[c].status} | \`${ERROR_CODES[c].type}\` | ${ERROR_CODES[c].message} |`),
    ].join('\n'),
  ].join('\n\n');
}
