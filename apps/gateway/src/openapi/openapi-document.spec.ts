import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_CODES, PUBLIC_ERROR_CODES, PUBLIC_EVENT_TYPES, SCOPES } from '#platform/contracts';
import { CONSENTS_LIMIT } from '../public-api/consents-query';
import { describedRoutes, publicApiDescription } from './public-api-description';
import { errorCodesOf } from './openapi-document';

const document = publicApiDescription();
const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
const operation = (id: string) => operations.find((o) => o.op.operationId === id)!;

/** Ajv over the whole document, so examples are checked against the very schemas they illustrate. */
function validatorFor(schema: unknown) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: 'doc' });
  return ajv.compile(JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')));
}

describe('the OpenAPI document of the public API', () => {
  it('has one operation per route of the route table, each with a unique operationId', () => {
    const routes = describedRoutes();
    expect(operations).toHaveLength(routes.length);
    expect(new Set(operations.map((o) => o.op.operationId)).size).toBe(routes.length);
    for (const route of routes)
      expect(document.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')][route.method.toLowerCase()].operationId).toBe(route.doc.operationId);
  });

  it('lists each operation’s scope, and every scope it names is a real one', () => {
    expect(operation('sendMessage').op['x-scopes']).toEqual(['messages:send']);
    expect(operation('ping').op['x-scopes']).toEqual([]);
    for (const { op } of operations) for (const scope of op['x-scopes'] as string[]) expect(SCOPES).toContain(scope);
  });

  it('describes query parameters from the parser’s own spec', () => {
    const limit = (operation('listConsents').op.parameters as { name: string; schema: unknown }[]).find((p) => p.name === 'limit');
    expect(limit?.schema).toEqual({ type: 'integer', minimum: CONSENTS_LIMIT.min, maximum: CONSENTS_LIMIT.max, default: CONSENTS_LIMIT.default });
  });

  it('refuses unknown properties in every request body, as the validator does', () => {
    for (const { op } of operations) {
      const ref = (op.requestBody as { content: Record<string, { schema: { $ref: string } }> } | undefined)?.content['application/json'].schema.$ref;
      if (ref) expect(document.components.schemas[ref.split('/').pop()!].additionalProperties).toBe(false);
    }
    expect(document.components.schemas.SendMessageRequest.required).toEqual(['to', 'type']);
  });

  it('declares every error with the status of its code, and only codes of the public API', () => {
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const code of response['x-error-codes'] ?? []) {
          expect(PUBLIC_ERROR_CODES).toContain(code);
          expect(ERROR_CODES[code].status).toBe(Number(status));
        }
      }
    }
    const send = describedRoutes().find((r) => r.doc.operationId === 'sendMessage')!;
    expect(errorCodesOf(send)).toEqual(expect.arrayContaining(['idempotency_key_required', 'consent_required', 'business_initiated_cap', 'payload_too_large']));
    expect((document['x-error-codes'] as unknown[]).length).toBe(PUBLIC_ERROR_CODES.length);
  });

  it('has a webhooks entry for every public event type', () => {
    expect(Object.keys(document.webhooks as object).sort()).toEqual([...PUBLIC_EVENT_TYPES].sort());
  });

  it('gives an example for every request and response body, valid against its schema', () => {
    let checked = 0;
    for (const { op } of operations) {
      const bodies = [
        (op.requestBody as { content?: Record<string, { schema: unknown; example?: unknown }> } | undefined)?.content?.['application/json'],
        ...Object.entries(op.responses)
          .filter(([status]) => Number(status) < 400)
          .map(([, r]) => r.content?.['application/json']),
      ].filter((c): c is { schema: unknown; example?: unknown } => c !== undefined);
      for (const body of bodies) {
        expect(body.example).toBeDefined();
        const validate = validatorFor(body.schema);
        expect({ op: op.operationId, valid: validate(body.example), errors: validate.errors ?? null }).toEqual({
          op: op.operationId,
          valid: true,
          errors: null,
        });
        checked++;
      }
    }
    for (const type of PUBLIC_EVENT_TYPES) {
      const body = (document.webhooks as Record<string, { post: { requestBody: { content: Record<string, { schema: unknown; example: unknown }> } } }>)[type]
        .post.requestBody.content['application/json'];
      expect(validatorFor(body.schema)(body.example)).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('gives an example envelope for every error code, valid against the envelope', () => {
    const validate = validatorFor({ $ref: '#/components/schemas/ErrorEnvelope' });
    const examples = document.components.examples as Record<string, { value: unknown }>;
    for (const code of PUBLIC_ERROR_CODES) expect(validate(examples[code].value)).toBe(true);
  });
});
