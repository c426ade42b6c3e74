/**
 * Property-based fuzzing of the public API from its own OpenAPI document: fast-check builds valid
 * requests from each operation's path, query and body schemas, then mutates them with hostile
 * values (NUL, unpaired surrogates, huge numbers, deep nesting, wrong types, unknown properties,
 * __proto__, bad percent-encoding). Every answer must be below 500, carry Svc-Request-Id and
 * Svc-Version, and every refusal must be the error envelope; a request unanswered in time is a hang.
 * Shared by the e2e test (through fuzz-run.mjs) and tools/bench/fuzz.bench.mjs.
 * Over 300 lines because the generators (paths, queries, bodies) and the mutations are one model of
 * the API that the counts and examples report on.
 */
import http from 'node:http';
import fc from 'fast-check';

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '',
  ' ',
  'x'.repeat(5000),
  '😀',
  '\u202e',
  '%00',
  '../../etc',
  "'; drop table x; --",
  '${jndi:x}',
  '\r\n',
];
const HOSTILE_NUMBERS = [0, -1, 1e308, -1e308, 2 ** 53 + 2, 0.5, -0, 1e-300];
/** Percent-encoded path segments, sent as they are. */
const HOSTILE_SEGMENTS = [
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%C0%AF',
  '%2F',
  '%25',
  '..',
  '.',
  'a'.repeat(65),
  'a'.repeat(3000),
  '%F0%9F%98%80',
  '%0A',
  '%7F',
  'we_%00',
  'x%20y',
  '%E2%80%AE',
];
const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', 'unknown', '\u0000', '\ud800', ''];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);
/** Any JSON value but a deep one (those come from `deep`). */
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constant([]),
  fc.constant({}),
  fc.array(hostileString, { maxLength: 3 }),
  hostileString,
);
/** Raw JSON nested deeper than any limit, as text: JSON.stringify would recurse as deep. */
const deepText = fc
  .integer({ min: 30, max: 5000 })
  .chain((depth) => fc.constantFrom('[', '{"a":').map((open) => open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth)));

/** Resolves `$ref`s of the document's components. */
function resolve(document, schema) {
  while (schema?.$ref)
    schema = schema.$ref
      .split('/')
      .slice(1)
      .reduce((node, key) => node[key], document);
  return schema ?? {};
}

/** A value valid for `schema` (as far as a generator can tell), from the schema alone. */
function valid(document, schema) {
  schema = resolve(document, schema);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  return fc.oneof(...types.map((type) => validOfType(document, schema, type)));
}

function validOfType(document, schema, type) {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 100_000_000, 2 ** 31) });
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 1e6, noNaN: true });
    case 'array':
      return fc.array(valid(document, schema.items ?? {}), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 5) });
    case 'string':
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'uri') return fc.webUrl();
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 4096));
      return fc
        .string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) })
        .filter((s) => s.length >= (schema.minLength ?? 0));
    default: {
      const properties = Object.entries(schema.properties ?? {});
      if (properties.length === 0) return fc.constant({});
      const required = new Set(schema.required ?? []);
      const keys = properties.map(([name]) => name);
      return fc.record(Object.fromEntries(properties.map(([name, property]) => [name, valid(document, property)])), {
        requiredKeys: keys.filter((k) => required.has(k)),
      });
    }
  }
}

/** The same body with one hostile change somewhere in it; bodies are returned as JSON text. */
function hostileBody(document, schema) {
  const base = valid(document, schema);
  return fc.oneof(
    { weight: 2, arbitrary: base.map((body) => JSON.stringify(body)) },
    { weight: 6, arbitrary: fc.tuple(base, fc.nat(), wrongType).map(([body, at, value]) => JSON.stringify(replaceLeaf(body, at, value))) },
    {
      weight: 2,
      arbitrary: fc.tuple(base, fc.nat(), fc.constantFrom(...HOSTILE_KEYS), wrongType).map(([body, at, key, value]) => addKey(body, at, key, value)),
    },
    { weight: 1, arbitrary: fc.tuple(base, deepText).map(([body, deep]) => JSON.stringify(body).replace(/^\{/, `{"to":${deep},`)) },
    { weight: 1, arbitrary: deepText },
    {
      weight: 1,
      arbitrary: fc.constantFrom('{', '[1,', 'nul', '"x"', '1e400', '-', '{"a":1e999999}', '\u0000', '{"a":"\\ud800"}', '[' + '0,'.repeat(20_000) + '0]'),
    },
  );
}

function leaves(value, path = []) {
  if (value === null || typeof value !== 'object') return [path];
  const children = Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [path, ...children];
}

function replaceLeaf(body, at, value) {
  const all = leaves(body);
  const path = all[at % all.length];
  if (path.length === 0) return value;
  const copy = structuredClone(body);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)] = value;
  return copy;
}

/** Adds a member by hand so that `__proto__` stays a member in the text. */
function addKey(body, at, key, value) {
  const text = JSON.stringify(body);
  const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return `{${member}}`;
  return text === '{}' ? `{${member}}` : text.replace(/^\{/, `{${member},`);
}

/** Operations of the document as request generators. */
export function requestArbitrary(document) {
  const operations = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) operations.push({ template, method: method.toUpperCase(), operation });
  }
  return fc.oneof(...operations.map((op) => operationArbitrary(document, op)));
}

function operationArbitrary(document, { template, method, operation }) {
  const parameters = (operation.parameters ?? []).map((p) => resolve(document, p));
  const pathParams = parameters.filter((p) => p.in === 'path');
  const queryParams = parameters.filter((p) => p.in === 'query');
  const idempotent = parameters.some((p) => p.name === 'Idempotency-Key');
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  const segment = fc.oneof(
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z]{2}_[0-9A-Za-z]{10,26}$/) },
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
  );
  const queryValue = (param) =>
    fc.oneof(
      { weight: 2, arbitrary: valid(document, param.schema).map((v) => encodeURIComponent(String(v))) },
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS) },
    );
  const query = fc.array(
    fc.oneof(
      ...queryParams.map((param) => queryValue(param).map((value) => `${param.name}=${value}`)),
      fc.constantFrom(...HOSTILE_SEGMENTS).map((name) => `${name}=1`),
    ),
    { maxLength: queryParams.length > 0 ? 4 : 1 },
  );
  return fc
    .record({
      method: fc.oneof({ weight: 20, arbitrary: fc.constant(method) }, { weight: 1, arbitrary: fc.constantFrom('PUT', 'OPTIONS', 'HEAD', 'TRACE') }),
      params: fc.tuple(...pathParams.map(() => segment)),
      query,
      body: bodySchema
        ? fc.option(hostileBody(document, bodySchema), { freq: 12 })
        : fc.option(fc.constantFrom('{}', '{"__proto__":1}', '[]', '\u0000'), { freq: 3 }),
      contentType: fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded') },
      ),
      idempotencyKey: idempotent ? fc.option(fc.oneof(fc.uuid(), fc.constantFrom('x'.repeat(300), ' ', 'a\tb')), { freq: 8 }) : fc.constant(null),
      app: fc.nat(),
    })
    .map((r) => {
      let i = 0;
      const path = template.replace(/\{[A-Za-z]+\}/g, () => r.params[i++]);
      return { ...r, operationId: operation.operationId, path: r.query.length > 0 ? `${path}?${r.query.join('&')}` : path };
    });
}

/** `count` requests, the same ones for the same seed. */
export function sampleRequests(document, count, seed) {
  return fc.sample(requestArbitrary(document), { numRuns: count, seed });
}

/**
 * Sends every request (at most `concurrency` at once, keys taken round-robin by `request.app`) and
 * counts what came back. A request unanswered within `timeoutMs` counts as a hang.
 */
export async function runFuzz({ baseUrl, keys, requests, concurrency = 16, timeoutMs = 15_000 }) {
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  /** @type {{ requests: number, byStatus: Record<string, number>, byCode: Record<string, number>, serverErrors: number, withoutEnvelope: number, withoutHeaders: number, hangs: number, transportErrors: number, examples: object[], seconds?: number }} */
  const counts = { requests: 0, byStatus: {}, byCode: {}, serverErrors: 0, withoutEnvelope: 0, withoutHeaders: 0, hangs: 0, transportErrors: 0, examples: [] };
  const problem = (kind, request, detail) => {
    if (counts.examples.length < 20)
      counts.examples.push({ kind, method: request.method, path: request.path, body: request.body?.slice(0, 300) ?? null, detail });
  };
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests.length) {
        const request = requests[next++];
        const answer = await send(agent, base, request, keys[request.app % keys.length], timeoutMs);
        counts.requests++;
        if (answer.hang) {
          counts.hangs++;
          problem('hang', request, null);
          continue;
        }
        if (answer.error) {
          counts.transportErrors++;
          problem('transport', request, answer.error);
          continue;
        }
        counts.byStatus[answer.status] = (counts.byStatus[answer.status] ?? 0) + 1;
        if (answer.status >= 500) {
          counts.serverErrors++;
          problem('5xx', request, answer.body);
        }
        const requestId = answer.headers['svc-request-id'];
        if (!/^req_[0-9A-Za-z]{24}$/.test(requestId ?? '') || !answer.headers['svc-version']) {
          counts.withoutHeaders++;
          problem('headers', request, answer.headers);
        }
        // A HEAD answer has no body to hold the envelope.
        if (answer.status >= 400 && request.method !== 'HEAD') {
          const error = answer.json?.error;
          if (
            !error ||
            typeof error.code !== 'string' ||
            error.requestId !== requestId ||
            typeof error.message !== 'string' ||
            typeof error.type !== 'string'
          ) {
            counts.withoutEnvelope++;
            problem('envelope', request, answer.body);
          } else {
            counts.byCode[error.code] = (counts.byCode[error.code] ?? 0) + 1;
          }
        }
      }
    }),
  );
  agent.destroy();
  counts.seconds = Math.round((Date.now() - started) / 100) / 10;
  return counts;
}

function send(agent, base, request, key, timeoutMs) {
  return new Promise((resolve) => {
    const headers = { host: base.host, authorization: `Bearer ${key}` };
    if (request.body !== null) {
      headers['content-type'] = request.contentType;
      headers['content-length'] = String(Buffer.byteLength(request.body));
    }
    if (request.idempotencyKey !== null) headers['idempotency-key'] = request.idempotencyKey;
    let settled = false;
    const done = (answer) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = http.request({ agent, host: base.hostname, port: base.port, method: request.method, path: base.pathname + request.path, headers }, (res) => {
      // An event stream never ends: its headers are the answer.
      if (res.headers['content-type']?.startsWith('text/event-stream')) {
        res.destroy();
        return done({ status: res.statusCode, headers: res.headers, body: '', json: null });
      }
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json = null;
        try {
          json = body ? JSON.parse(body) : null;
        } catch {
          // not JSON: the envelope check counts it
        }
        done({ status: res.statusCode, headers: res.headers, body: body.slice(0, 500), json });
      });
      res.on('error', (error) => done({ error: /** @type {NodeJS.ErrnoException} */ (error).code ?? error.message }));
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      done({ hang: true });
    });
    req.on('error', (error) => done({ error: /** @type {NodeJS.ErrnoException} */ (error).code ?? error.message }));
    req.end(request.body ?? undefined);
  });
}
