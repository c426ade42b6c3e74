import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { api, eventually, expectStatus, requestsTo, startWebhookReceiver, TEST_WEBHOOK_HOSTS, unique, type HttpsReceiver } from '#platform/testing';
import { launchChromium, SCREENSHOTS, signIn } from './console-browser.test-helpers';
import { appOwnedBy, CONSOLE } from './console-visitor.test-helpers';

/**
 * A delivery's detail page, readable times and the layout, in a real headless Chromium with the
 * page's one script blocked (nothing here may need it): the detail shows the body, the signature
 * headers and each attempt's answer; at 1280 px no table on any app page is wider than its
 * container or the page, and "Last used" is in view; at 390 px table rows stack, each cell under
 * its column's name; every time is a <time> with its exact UTC moment. The template form's preview
 * follows typing once the script runs.
 */
let browser: Browser;
let receiver: HttpsReceiver;
beforeAll(async () => {
  browser = await launchChromium();
  receiver = await startWebhookReceiver(3);
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** Tables wider than their container, and how far the page is wider than its window (evaluated in the page). */
const OVERFLOW = `(() => {
  const tables = [...document.querySelectorAll('table')];
  return {
    tables: tables.length,
    wide: tables
      .filter(
        (t) =>
          t.scrollWidth > t.clientWidth ||
          t.parentElement.scrollWidth > t.parentElement.clientWidth ||
          t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5,
      )
      .map((t) => t.getAttribute('aria-label') || t.querySelector('th').textContent.trim()),
    page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };
})()`;

/** <time> elements, and those without a datetime that parses or an exact UTC title. */
const TIMES = `(() => {
  const times = [...document.querySelectorAll('time')];
  const exact = /^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} UTC$/;
  return {
    count: times.length,
    bad: times.filter((t) => Number.isNaN(Date.parse(t.getAttribute('datetime') || '')) || !exact.test(t.title)).map((t) => t.outerHTML),
  };
})()`;

/** For the first body row of each table: whether its first two cells stack (the second below the first), and the first cell's label. */
const STACKING = `(() => [...document.querySelectorAll('table')].map((t) => {
  const cells = [...t.querySelectorAll('tbody tr:first-child > *')];
  const [a, b] = cells.map((c) => c.getBoundingClientRect());
  return {
    stacked: cells.length >= 2 && b.top >= a.bottom - 1 && Math.abs(b.left - a.left) < 1,
    label: getComputedStyle(cells[0], '::before').content,
  };
}))()`;

async function noScript(page: Page): Promise<void> {
  await page.route('**/assets/console.js', (route) => route.abort());
}

describe('console delivery detail, times and layout (browser e2e)', () => {
  it('shows a delivery in detail; at 1280 px no table scrolls sideways; at 390 px rows stack', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Layout App');
    const secondApp = await appOwnedBy(owner, 'Second App');
    const hookPath = `/${unique('hook-')}`;
    const answer = JSON.stringify({ received: true, note: 'thanks from the receiver' });
    receiver.respond((req) =>
      req.path === hookPath && req.method === 'POST' ? { status: 200, body: answer, headers: { 'content-type': 'application/json' } } : undefined,
    );
    const wide = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    try {
      const page = await wide.newPage();
      await noScript(page);
      await signIn(page, owner);

      // A key, used once against the API (to add the endpoint and send it a test event).
      await page.goto(`${CONSOLE}/apps/${appId}/keys`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.getByLabel('API key (shown once: copy it now)').inputValue();
      const url = `https://${TEST_WEBHOOK_HOSTS[3]}${hookPath}`;
      const hook = expectStatus(await api('POST', '/webhooks', key, { url, verifyToken: unique('token-'), events: ['message.status'] }), 201).body;
      const { deliveryId } = expectStatus(await api('POST', `/webhooks/${hook.id}/test`, key), 202).body;
      await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= 1, 15_000);
      const [sent] = requestsTo(receiver, hookPath);
      // Someone invited, so that the members page has times too.
      await page.goto(`${CONSOLE}/apps/${appId}/members`);
      await page.getByLabel('Email address to invite').fill(`${unique('invitee.')}@widgets.example`);
      await page.getByRole('button', { name: 'Invite' }).click();
      await page.getByRole('heading', { name: 'Invited' }).waitFor();
      // A template, so that the templates page has a row; with the script, the preview and the example fields follow typing.
      const scripted = await wide.newPage();
      await scripted.goto(`${CONSOLE}/apps/${appId}/templates/new`);
      await scripted.getByLabel('Name').fill('order_shipped');
      await scripted.getByLabel(/^Body/).fill('Hi {{name}}, your order ships today.');
      await scripted.getByLabel('Example for {{name}}').fill('Ada');
      await scripted.getByLabel(/^Footer/).fill('Reply STOP to stop');
      expect(await scripted.locator('#template-preview').textContent()).toBe('Hi Ada, your order ships today.\n\nReply STOP to stop');
      await scripted.screenshot({ path: path.join(SCREENSHOTS, 'console-template-form-1280.png'), fullPage: true });
      await scripted.getByRole('button', { name: 'Create template' }).click();
      await scripted.getByRole('row', { name: /^Template order_shipped en/ }).waitFor();
      await scripted.screenshot({ path: path.join(SCREENSHOTS, 'console-templates-1280.png'), fullPage: true });
      await scripted.close();

      // The delivery's detail: the body, the headers as the receiver got them, the attempt and its answer.
      const detail = `${CONSOLE}/apps/${appId}/webhook-deliveries/${deliveryId}`;
      const attempt = page.getByRole('row', { name: 'Attempt 1', exact: true });
      await eventually(async () => {
        await page.goto(detail);
        return (await attempt.count()) === 1;
      }, 15_000);
      await page.getByRole('heading', { name: `Delivery ${deliveryId}` }).waitFor();
      const body = (await page.getByRole('region', { name: 'Event body' }).locator('pre').textContent()) ?? '';
      expect(JSON.parse(body)).toEqual(JSON.parse(sent.rawBody.toString('utf8')));
      expect(body).toContain('\n  "type": "webhook.test"');
      const headers = page.getByRole('table', { name: 'Request headers of attempt 1' });
      for (const name of [
        'Svc-Signature',
        'Svc-Event-Id',
        'Svc-Delivery-Attempt',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
        'Content-Type',
        'User-Agent',
      ]) {
        const row = headers.getByRole('row', { name: new RegExp(`^${name}\\b`) });
        expect([name, (await row.getByRole('cell').textContent())?.trim()]).toEqual([name, sent.headers[name.toLowerCase()]]);
      }
      expect(await page.getByText(hook.secret).count()).toBe(0);
      const cells = attempt.getByRole('cell');
      expect((await cells.nth(2).textContent())?.trim()).toBe('HTTP 200');
      expect((await cells.nth(3).textContent())?.trim()).toMatch(/^\d+ ms$/);
      expect((await cells.nth(4).textContent())?.trim()).toBe(answer);
      expect((await cells.nth(1).locator('time').textContent())?.trim()).toBe('just now');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-delivery-detail.png'), fullPage: true });
      // The same delivery under another app of the same person is not there.
      expect((await page.goto(`${CONSOLE}/apps/${secondApp}/webhook-deliveries/${deliveryId}`))?.status()).toBe(404);

      // The key shows as used (the request above), in the "Last used" column, in view.
      await eventually(async () => {
        await page.goto(`${CONSOLE}/apps/${appId}/keys`);
        return (
          (await page
            .getByRole('row', { name: /^Key qk_sb_/ })
            .getByRole('cell')
            .nth(4)
            .locator('time')
            .count()) === 1
        );
      }, 15_000);
      const lastUsed = page.getByRole('columnheader', { name: 'Last used' });
      expect(await lastUsed.isVisible()).toBe(true);
      // Within the table's visible box, not scrolled out of it.
      const box = await lastUsed.boundingBox();
      const table = await page.getByRole('table').first().boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(Math.min(1280, table!.x + table!.width));
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-keys-1280.png'), fullPage: true });

      const pages: Record<string, { path: string; tables: number }> = {
        overview: { path: '', tables: 0 },
        keys: { path: '/keys', tables: 1 },
        webhooks: { path: '/webhooks', tables: 1 },
        deliveries: { path: '/webhook-deliveries', tables: 1 },
        'delivery detail': { path: `/webhook-deliveries/${deliveryId}`, tables: 2 },
        members: { path: '/members', tables: 1 },
        profile: { path: '/profile', tables: 0 },
        templates: { path: '/templates', tables: 1 },
      };
      for (const [name, { path: subPath, tables }] of Object.entries(pages)) {
        await page.goto(`${CONSOLE}/apps/${appId}${subPath}`);
        const overflow = await page.evaluate<{ tables: number; wide: string[]; page: number }>(OVERFLOW);
        expect({ name, ...overflow }).toEqual({ name, tables: expect.any(Number), wide: [], page: 0 });
        expect([name, overflow.tables >= tables]).toEqual([name, true]);
        const times = await page.evaluate<{ count: number; bad: string[] }>(TIMES);
        expect({ name, bad: times.bad, some: times.count > 0 }).toEqual({ name, bad: [], some: true });
      }

      // At phone width, without the script: every table's rows stack, each cell under its column's name.
      const small = await phone.newPage();
      await noScript(small);
      await signIn(small, owner);
      for (const [subPath, shot] of [
        ['/keys', 'console-keys-phone.png'],
        [`/webhook-deliveries/${deliveryId}`, 'console-delivery-detail-phone.png'],
        ['/templates', 'console-templates-390.png'],
      ]) {
        await small.goto(`${CONSOLE}/apps/${appId}${subPath}`);
        const stacking = await small.evaluate<{ stacked: boolean; label: string }[]>(STACKING);
        expect(stacking.length).toBeGreaterThan(0);
        expect(stacking.every((t) => t.stacked && t.label !== 'none' && t.label !== '')).toBe(true);
        expect((await small.evaluate<{ page: number }>(OVERFLOW)).page).toBeLessThanOrEqual(0);
        await small.screenshot({ path: path.join(SCREENSHOTS, shot), fullPage: true });
      }
    } finally {
      await wide.close();
      await phone.close();
    }
  }, 120_000);
});
