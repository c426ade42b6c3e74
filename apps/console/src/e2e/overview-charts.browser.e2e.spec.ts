import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  admin,
  createTestUser,
  eventually,
  expectStatus,
  registerWebhook,
  requestsTo,
  sendMessage,
  simAppAction,
  startWebhookReceiver,
  unique,
  type TestApp,
} from '#platform/testing';
import { launchChromium, SCREENSHOTS, signIn } from './console-browser.test-helpers';
import { CONSOLE } from './console-visitor.test-helpers';

/**
 * The overview's charts and the endpoints' health in a real Chromium: messages sent, delivered and
 * read through the simulator, their message.status deliveries to a registered endpoint, then the
 * tables beside the charts hold today's numbers, at desktop and phone width, no table wider than
 * its container.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** Cells of the row for `day` in the table of the figure captioned `caption`, as text. */
async function dayRow(page: Page, caption: string, day: string): Promise<string[]> {
  const row = page.getByRole('figure', { name: new RegExp(caption) }).getByRole('row', { name: new RegExp(day) });
  return (await row.getByRole('cell').allTextContents()).map((t) => t.trim());
}

/** Tables wider than their container (evaluated in the page; this program has no DOM types). */
const tooWide = (page: Page) =>
  page.evaluate<number>('[...document.querySelectorAll("table")].filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1).length');

describe('overview charts and endpoint health (browser e2e)', () => {
  it('shows today’s messages by status and deliveries in the charts’ tables, and each endpoint’s last 24 hours', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const org = expectStatus(await admin('POST', '/orgs', { name: unique('Org '), allowsExternalBusinesses: true }), 201).body;
    const created = expectStatus(
      await admin('POST', '/apps', { orgId: org.id, handle: unique('app-'), displayName: 'Charts App', creatorEmail: owner }),
      201,
    ).body;
    const key = expectStatus(await admin('POST', `/apps/${created.id}/keys`, { environment: 'sandbox' }), 201).body;
    const app: TestApp = { orgId: org.id, appId: created.id, sandboxKey: key.key, sandboxKeyId: key.id };
    const user = await createTestUser(org.id);
    expectStatus(await admin('POST', `/apps/${app.appId}/testers`, { userId: user.id }), 201);
    const { appUserId } = expectStatus(await simAppAction(user.id, app.appId, 'accept-tester'), 200).body;
    const receiver = await startWebhookReceiver(3);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const hook = await registerWebhook(app, ['message.status'], { hostIndex: 3 });
      expect(hook.state).toBe('enabled');

      // Three messages: all delivered, one read. That is 7 message.status deliveries (3 sent, 3 delivered, 1 read).
      const ids: string[] = [];
      for (const text of ['one', 'two', 'three'])
        ids.push(expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text }), 202).body.id);
      for (const id of ids) {
        await eventually(async () => (await admin('POST', `/sim/users/${user.id}/receipts`, { messageId: id, status: 'delivered' })).status === 200, 15_000);
      }
      expectStatus(await admin('POST', `/sim/users/${user.id}/receipts`, { messageId: ids[0], status: 'read' }), 200);
      await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 7, 20_000);
      const today = new Date(expectStatus(await admin('GET', '/clock'), 200).body.now).toISOString().slice(0, 10);

      const page = await context.newPage();
      await signIn(page, owner);
      await eventually(async () => {
        await page.goto(`${CONSOLE}/apps/${app.appId}`);
        const messages = await dayRow(page, 'Messages per day by status', today);
        const deliveries = await dayRow(page, 'Webhook deliveries per day', today);
        return messages.join('|') === '3|3|1|0' && deliveries.join('|') === '7|0|100 %';
      }, 20_000);
      // Both charts are images named for what they show, with a legend and 30 days in their tables.
      for (const name of [/^Messages per day by status/, /^Webhook deliveries per day/]) expect(await page.getByRole('img', { name }).count()).toBe(1);
      expect(
        await page
          .getByRole('figure', { name: /Messages per day/ })
          .getByRole('listitem')
          .allTextContents(),
      ).toEqual([expect.stringContaining('Sent'), expect.stringContaining('Delivered'), expect.stringContaining('Read'), expect.stringContaining('Failed')]);
      expect(
        await page
          .getByRole('figure', { name: /Webhook deliveries/ })
          .getByRole('row')
          .count(),
      ).toBe(31);
      await page.getByText('7 delivered, 100 % of them at the first attempt').waitFor();
      expect(await tooWide(page)).toBe(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-overview-charts.png'), fullPage: true });

      await page.goto(`${CONSOLE}/apps/${app.appId}/webhooks`);
      const health = page.getByRole('table', { name: 'Health, last 24 hours' }).getByRole('row', { name: new RegExp(hook.path) });
      const cells = (await health.getByRole('cell').allTextContents()).map((t) => t.trim());
      expect(cells.slice(0, 2)).toEqual(['7', '100 %']);
      expect(cells[2]).toMatch(/^≤ [\d,]+ ms$/);
      expect(cells[3]).toBe('none');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-endpoint-health.png'), fullPage: true });

      // At phone width the rows stack: nothing is wider than the screen.
      const phone = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        hasTouch: true,
        storageState: await context.storageState(),
      });
      try {
        const small = await phone.newPage();
        await small.goto(`${CONSOLE}/apps/${app.appId}`);
        expect(await dayRow(small, 'Messages per day by status', today)).toEqual(['3', '3', '1', '0']);
        expect(await tooWide(small)).toBe(0);
        expect(await small.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
        await small.screenshot({ path: path.join(SCREENSHOTS, 'console-overview-charts-phone.png'), fullPage: true });
      } finally {
        await phone.close();
      }
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 120_000);
});
