/**
 * The noisy-neighbour scenario's neighbour: an app of its own whose two webhook endpoints fail (one
 * answers 500, one hangs past the 10 s answer limit) while it sends at its own rate. The campaign's
 * apps are the quiet ones: their sends must lose nothing and their webhooks stay on time.
 */
import { randomUUID } from 'node:crypto';
import { WEBHOOK_HOST } from './chaos-stack.mjs';

/** Longer than the 10 s answer limit: every attempt to the hanging endpoint times out. */
const HANG_MS = 30_000;

export class NoisyNeighbour {
  /** @param {any} stack a started ChaosStack */
  constructor(stack) {
    this.stack = stack;
    this.paths = { failing: '/noisy-failing', hanging: '/noisy-hanging' };
    this.endpointIds = [];
    this.recipients = [];
    this.key = '';
    this.timer = null;
    this.sent = 0;
  }

  /** An app with `users` testers (reply windows open) and its two endpoints, healthy until the noise starts. */
  async seed(users) {
    const org = await this.stack.admin('POST', '/orgs', { name: 'Chaos noisy', allowsExternalBusinesses: true });
    const app = await this.stack.admin('POST', '/apps', { orgId: org.id, handle: `chaos-noisy-${Date.now()}`, displayName: 'Chaos noisy' });
    await this.stack.admin('PATCH', `/apps/${app.id}`, { dailyQuota: 100_000_000 });
    this.key = (await this.stack.admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' })).key;
    for (const hookPath of Object.values(this.paths)) {
      const created = await this.api('POST', '/webhooks', {
        url: `https://${WEBHOOK_HOST}${hookPath}`,
        verifyToken: 'chaos-verify-token',
        events: ['message.status'],
      });
      this.endpointIds.push(created.id);
    }
    for (let u = 0; u < users; u++) {
      const user = await this.stack.admin('POST', '/users', { orgId: org.id, email: `chaos-noisy-${u}-${Date.now()}@example.test` });
      await this.stack.admin('POST', `/apps/${app.id}/testers`, { userId: user.id });
      await this.stack.admin('POST', `/sim/users/${user.id}/apps/${app.id}/accept-tester`);
      this.recipients.push((await this.stack.admin('POST', `/sim/users/${user.id}/messages`, { appId: app.id, type: 'text', text: 'hi' })).appUserId);
    }
  }

  /**
   * Its endpoints fail from now on and it sends at `rate` per second (no retries: its own sends are
   * not checked) until stop().
   * @param {import('./delivery-check.mjs').WebhookLog} webhooks
   * @param {number} rate
   */
  start(webhooks, rate) {
    webhooks.override = (req) => {
      if (req.method !== 'POST') return undefined;
      if (req.path === this.paths.failing) return { status: 500, body: 'down' };
      if (req.path === this.paths.hanging) return { status: 200, delayMs: HANG_MS };
      return undefined;
    };
    const startedAt = performance.now();
    const tick = () => {
      while (this.sent * (1000 / rate) <= performance.now() - startedAt) {
        const n = this.sent++;
        void this.api(
          'POST',
          '/messages',
          { to: { appUserId: this.recipients[n % this.recipients.length] }, type: 'text', text: `noise ${n}` },
          { 'idempotency-key': randomUUID() },
        ).catch(() => undefined);
      }
      this.timer = setTimeout(tick, 5);
    };
    tick();
  }

  /** Stops sending; its endpoints are deleted, which ends their pending deliveries, and the receiver answers as usual again. */
  async stop(webhooks) {
    clearTimeout(this.timer);
    for (const id of this.endpointIds) await this.api('DELETE', `/webhooks/${id}`).catch(() => undefined);
    webhooks.override = null;
  }

  /**
   * @param {string} method
   * @param {string} route
   * @param {unknown} [body]
   * @param {Record<string, string>} [headers]
   * @returns {Promise<any>}
   */
  async api(method, route, body, headers = {}) {
    const res = await fetch(`${this.stack.publicUrl}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? null : res.json();
  }
}
