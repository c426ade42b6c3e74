/**
 * Holds every answer the end-to-end suite gets from the public API, and every webhook body its
 * receivers get, to the OpenAPI document the gateway serves: the status must be one the operation
 * declares, the body valid against its schema (Ajv, JSON Schema 2020-12), an error's code one of
 * those declared for that status, and the common headers present. A field added, renamed or made
 * nullable in code without the document, or a refusal the document does not list, fails the test
 * that provoked it.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { API_VERSION, PUBLIC_EVENT_SPECS, PUBLIC_EVENT_TYPES, PUBLIC_BASE_PATH, type PublicEventType } from '#platform/contracts';

const DOCUMENT_ID = 'https://platform.invalid/openapi.json';

interface ResponseSpec {
  'x-error-codes'?: string[];
  content?: Record<string, { schema: unknown }>;
}
interface Operation {
  operationId: string;
  responses: Record<string, ResponseSpec>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

export class ApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; regex: RegExp; template: string; operation: Operation }[] = [];

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    for (const [template, methods] of Object.entries(document.paths)) {
      const regex = new RegExp(`^${template.replace(/\{[A-Za-z]+\}/g, '[^/]+')}/?$`);
      for (const [method, operation] of Object.entries(methods)) this.templates.push({ method: method.toUpperCase(), regex, template, operation });
    }
  }

  /** The problems of one answer to `method` on `path` (relative to the API base); empty when it conforms. */
  checkResponse(method: string, path: string, status: number, headers: Headers, body: unknown): string[] {
    const problems: string[] = [];
    if (!/^req_[0-9A-Za-z]{24}$/.test(headers.get('svc-request-id') ?? '')) problems.push(`Svc-Request-Id is ${headers.get('svc-request-id')}`);
    if (headers.get('svc-version') !== API_VERSION) problems.push(`Svc-Version is ${headers.get('svc-version')}`);
    const found = this.templates.find((t) => t.method === method.toUpperCase() && t.regex.test(path));
    if (!found) {
      // No operation: only the pipeline's 404 for an unknown route, or the document and its page.
      if (status === 404) problems.push(...this.checkError(this.envelope(), body, ['route_not_found'], 404));
      else if (!['/openapi.json', '/docs'].some((p) => path.startsWith(p)))
        problems.push(`${method} ${path} answered ${status} but the document has no such operation`);
      return problems;
    }
    const label = `${found.operation.operationId} (${method} ${found.template})`;
    const response = found.operation.responses[String(status)];
    if (!response)
      return [...problems, `${label} answered ${status}, which the document does not declare (declared: ${Object.keys(found.operation.responses).join(', ')})`];
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== undefined && body !== '') problems.push(`${label} ${status} has a body the document does not describe`);
      return problems;
    }
    if (status >= 400)
      return [...problems, ...this.checkError(this.validatorFor(schema), body, response['x-error-codes'] ?? [], status).map((p) => `${label}: ${p}`)];
    const validate = this.validatorFor(schema);
    if (!validate(body)) problems.push(`${label} ${status} body does not match the document: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
    return problems;
  }

  /** The problems of one webhook body (raw bytes as received); empty when it conforms. */
  checkWebhookBody(rawBody: Buffer | string): string[] {
    let event: { type?: string };
    try {
      event = JSON.parse(rawBody.toString());
    } catch {
      return ['the webhook body is not JSON'];
    }
    const type = event.type as PublicEventType;
    if (!PUBLIC_EVENT_TYPES.includes(type)) return [`the webhook body has an unknown type ${String(type)}`];
    const validate = this.validatorFor({ $ref: `${DOCUMENT_ID}#/components/schemas/${PUBLIC_EVENT_SPECS[type].component}` });
    return validate(event) ? [] : [`${type} body does not match the document: ${this.ajv.errorsText(validate.errors, { dataVar: 'event' })}`];
  }

  private checkError(validate: ValidateFunction, body: unknown, codes: string[], status: number): string[] {
    if (!validate(body)) return [`${status} body is not the error envelope: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`];
    const code = (body as { error: { code: string } }).error.code;
    return codes.includes(code) ? [] : [`${status} ${code} is not among the codes the document declares for it (${codes.join(', ')})`];
  }

  private envelope(): ValidateFunction {
    return this.validatorFor({ $ref: `${DOCUMENT_ID}#/components/schemas/ErrorEnvelope` });
  }

  private validatorFor(schema: unknown): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      // References inside the document are relative to it.
      const absolute = JSON.parse(key.replace(/"#\/components\//g, `"${DOCUMENT_ID}#/components/`));
      validate = this.ajv.compile(absolute);
      this.validators.set(key, validate);
    }
    return validate;
  }
}

let shared: Promise<ApiConformance> | undefined;

/** The document the running gateway serves, fetched once per test file. */
export function servedConformance(publicUrl: string): Promise<ApiConformance> {
  shared ??= fetch(`${publicUrl}/openapi.json`).then(async (res) => {
    if (res.status !== 200) throw new Error(`GET ${PUBLIC_BASE_PATH}/openapi.json answered ${res.status}`);
    return new ApiConformance((await res.json()) as OpenApiDocument);
  });
  return shared;
}
