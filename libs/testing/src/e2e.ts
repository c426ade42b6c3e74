/** HTTP helpers for *.e2e.spec.ts: talk to the running test stack like a client would. */
import { servedConformance } from './api-conformance';
import { Client } from 'pg';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export function publicUrl(): string {
  return required('TEST_PUBLIC_URL');
}
export function adminUrl(): string {
  return required('TEST_ADMIN_URL');
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run e2e tests through jest's integration project (global setup starts the stack)`);
  return value;
}

export async function http<T = any>(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string | Buffer } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: string | Buffer | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // leave as text
  }
  await checkConformance(init.method ?? 'GET', url, res, parsed);
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Every answer of the public API must be one its OpenAPI document declares (see api-conformance.ts). */
async function checkConformance(method: string, url: string, res: Response, body: unknown): Promise<void> {
  const base = process.env.TEST_PUBLIC_URL;
  if (!base || !url.startsWith(base + '/')) return;
  const path = new URL(url).pathname.slice(new URL(base).pathname.length);
  const problems = (await servedConformance(base)).checkResponse(method, path, res.status, res.headers, body);
  if (problems.length > 0) throw new Error(`the answer does not conform to the OpenAPI document:\n- ${problems.join('\n- ')}\nbody: ${JSON.stringify(body)}`);
}

export function admin<T = any>(method: string, path: string, body?: unknown, token = process.env.TEST_ADMIN_TOKEN ?? ''): Promise<HttpResult<T>> {
  return http<T>(adminUrl() + path, { method, body, headers: { authorization: `Bearer ${token}` } });
}

export function api<T = any>(method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
  return http<T>(publicUrl() + path, { method, body, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
}

/** Fails with the response when the status is not the expected one. */
export function expectStatus<T>(result: HttpResult<T>, status: number): HttpResult<T> {
  if (result.status !== status) throw new Error(`expected HTTP ${status}, got ${result.status}: ${JSON.stringify(result.body)}`);
  return result;
}

/** Fails unless the answer is the error envelope with this status and code. */
export function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
}

/** Runs `fn` over items with at most `concurrency` in flight; results in the items' order. */
export async function inParallel<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]);
      }
    }),
  );
  return results;
}

export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

export interface TestApp {
  orgId: string;
  appId: string;
  sandboxKey: string;
  sandboxKeyId: string;
}

/** A fresh org and sandbox app with one sandbox key, made through the admin API. */
export async function createTestApp(options: { allowsExternalBusinesses?: boolean; scopes?: string[] } = {}): Promise<TestApp> {
  const org = expectStatus(
    await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: options.allowsExternalBusinesses ?? true }),
    201,
  ).body;
  const app = expectStatus(await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName: 'Test Business' }), 201).body;
  const key = expectStatus(
    await admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox', ...(options.scopes ? { scopes: options.scopes } : {}) }),
    201,
  ).body;
  return { orgId: org.id, appId: app.id, sandboxKey: key.key, sandboxKeyId: key.id };
}

/** Polls until check returns a truthy value; fails with the last value after timeoutMs. */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    // A truthy value is never null or undefined.
    if (last) return last as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
}

/** A fresh active chat user in the org, made through the admin API. */
export async function createTestUser(orgId: string): Promise<{ id: string; orgId: string; email: string }> {
  return expectStatus(await admin('POST', '/users', { orgId, email: `${unique('user')}@example.test` }), 201).body;
}

/** The user's appUserId for the app (D2), from the admin API. */
export async function appUserIdOf(appId: string, userId: string): Promise<string> {
  return expectStatus(await admin('GET', `/apps/${appId}/users/${userId}`), 200).body.appUserId;
}

/** The simulated user sends the app a text message; returns once the platform has taken it in. */
export async function simSendText(userId: string, appId: string, text = 'hello'): Promise<{ id: string; appUserId: string }> {
  return expectStatus(await admin('POST', `/sim/users/${userId}/messages`, { appId, type: 'text', text }), 201).body;
}

/** The simulated user acts on the app: allow, stop, block, unblock or accept-tester. */
export function simAppAction(userId: string, appId: string, action: 'allow' | 'stop' | 'block' | 'unblock' | 'accept-tester'): Promise<HttpResult> {
  return admin('POST', `/sim/users/${userId}/apps/${appId}/${action}`);
}

/** The platform clock now (test clock). */
export async function platformNow(): Promise<Date> {
  return new Date(expectStatus(await admin('GET', '/clock'), 200).body.now);
}

/** Moves the platform's test clock forward for every service. */
export async function advanceClock(seconds: number): Promise<Date> {
  return new Date(expectStatus(await admin('POST', '/clock/advance', { seconds }), 200).body.now);
}

/** One query against a database (the stack's own by default), for tests that check what a service stored. */
export async function queryDatabase<T = Record<string, unknown>>(sql: string, params: unknown[] = [], url = process.env.DATABASE_URL as string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A sandbox app and a user who accepted its tester invitation (opted in, window closed). */
export async function appWithTester(): Promise<{ app: TestApp; userId: string; appUserId: string }> {
  const app = await createTestApp();
  const { userId, appUserId } = await addTester(app);
  return { app, userId, appUserId };
}

export async function addTester(app: TestApp): Promise<{ userId: string; appUserId: string }> {
  const user = await createTestUser(app.orgId);
  expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
  const consent = expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200).body;
  return { userId: user.id, appUserId: consent.appUserId };
}

/** POST /messages with a fresh Idempotency-Key unless one is given. */
export function sendMessage(key: string, body: unknown, idempotencyKey: string | null = unique('idem-')): Promise<HttpResult> {
  return api('POST', '/messages', key, body, idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey });
}

/** What the simulated user's inbox shows for one app. */
export async function simInbox(
  userId: string,
  appId: string,
): Promise<{ messageId: string; type: string; text: string | null; media: { id: string; fileName: string; mimeType: string; size: number; url: string }[] }[]> {
  return expectStatus(await admin('GET', `/sim/users/${userId}/inbox?appId=${appId}`), 200).body.data;
}
