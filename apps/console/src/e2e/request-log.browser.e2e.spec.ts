import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { admin, api, eventually, expectStatus, sendMessage, unique } from '#platform/testing';
import { launchChromium, SCREENSHOTS, signIn } from './console-browser.test-helpers';
import { appOwnedBy, CONSOLE } from './console-visitor.test-helpers';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** Every table on the page that is wider than its container (it would scroll sideways), by its first header. */
const overflowing = (page: Page) =>
  page.evaluate<string[]>(
    `[...document.querySelectorAll('table')]
      .filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1 || t.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .map((t) => t.querySelector('th')?.textContent ?? '?')`,
  );

/** The request log in Chromium, at 1280 px and at phone width (390 px), with screenshots of list, phone list and detail. */
describe('console request log in a browser (e2e)', () => {
  it('finds a refused request by its requestId, filters to it, shows its envelope, and fits the screen at 1280 px and 390 px', async () => {
    const owner = `${unique('owner.')}@requests.example`;
    const appId = await appOwnedBy(owner, 'Requests App');
    const key = expectStatus(await admin('POST', `/apps/${appId}/keys`, { environment: 'sandbox' }), 201).body.key;
    expectStatus(await api('GET', '/consents', key), 200);
    const refused = await sendMessage(key, { to: { appUserId: 'u_nobody' }, type: 'text', text: 'hi', colour: 'blue' });
    expect(refused.status).toBe(400);
    const requestId: string = refused.body.error.requestId;

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await signIn(page, owner);
      await page.getByRole('link', { name: 'Requests App' }).click();
      await page.getByRole('link', { name: 'Request log' }).click();
      await page.getByRole('heading', { name: 'Request log' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: requestId });
      await eventually(async () => {
        if ((await row.count()) === 1) return true;
        await page.reload();
        return null;
      }, 15_000);
      expect(await row.textContent()).toMatch(/POST\s*\/platform\/v1\/messages\s*400\s*invalid_request\s*qk_sb_/);
      expect(await row.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-requests.png'), fullPage: true });

      // The filters are a plain GET form.
      await page.getByLabel('Status').selectOption('4xx');
      await page.getByLabel('Path', { exact: true }).fill('/messages');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=4xx/);
      expect(new URL(page.url()).searchParams.get('path')).toBe('/messages');
      expect(await page.getByRole('row').count()).toBe(2);

      await page.getByRole('link', { name: requestId }).click();
      await page.getByRole('heading', { name: `Request ${requestId}` }).waitFor();
      expect(await page.getByLabel('Error envelope').textContent()).toBe(JSON.stringify(refused.body, null, 2));
      expect(await overflowing(page)).toEqual([]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-request-detail.png'), fullPage: true });

      // At phone width the rows stack: each cell a labelled line, no table wider than the screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${CONSOLE}/apps/${appId}/requests`);
      await row.waitFor();
      expect(await overflowing(page)).toEqual([]);
      const [time, method] = await Promise.all([row.locator('td').nth(0).boundingBox(), row.locator('td').nth(1).boundingBox()]);
      // Stacked: the second cell sits under the first, not beside it.
      expect([method!.x, method!.y > time!.y]).toEqual([time!.x, true]);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-requests-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  }, 90_000);
});
