/** Recipients a bench can send to without limits of their own: testers whose reply windows are open. */
import { inParallel } from './bench-stack.mjs';

/**
 * `count` users of the app's org made testers of the app, each of whom has written to it, so its
 * reply window is open and no business-initiated cap applies. Resolves with their appUserIds.
 * @param {(method: string, path: string, body?: unknown) => Promise<any>} admin
 * @param {{ orgId: string, appId: string }} app
 * @param {number} count
 * @param {string} tag names the users' emails
 * @returns {Promise<string[]>}
 */
export function seedRecipients(admin, { orgId, appId }, count, tag) {
  return inParallel(
    Array.from({ length: count }, (_, i) => i),
    4,
    async (i) => {
      const user = await admin('POST', '/users', { orgId, email: `${tag}-${i}-${Date.now()}@example.test` });
      await admin('POST', `/apps/${appId}/testers`, { userId: user.id });
      await admin('POST', `/sim/users/${user.id}/apps/${appId}/accept-tester`);
      return (await admin('POST', `/sim/users/${user.id}/messages`, { appId, type: 'text', text: 'hi' })).appUserId;
    },
  );
}
