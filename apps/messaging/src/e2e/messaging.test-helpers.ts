import { admin, api, createTestApp, createTestUser, expectStatus, simAppAction, unique, type HttpResult, type TestApp } from '@platform/testing';

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
export function send(key: string, body: unknown, idempotencyKey: string | null = unique('idem-')): Promise<HttpResult> {
  return api('POST', '/messages', key, body, idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey });
}

export async function inbox(userId: string, appId: string): Promise<{ messageId: string; text: string | null }[]> {
  return expectStatus(await admin('GET', `/sim/users/${userId}/inbox?appId=${appId}`), 200).body.data;
}
