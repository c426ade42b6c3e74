import path from 'node:path';
import type { Browser } from 'playwright-core';
import { api, eventually, ONE_PIXEL_PNG, requestsTo, startWebhookReceiver, TEST_WEBHOOK_HOSTS, unique } from '#platform/testing';
import { launchChromium, SCREENSHOTS, signIn } from './console-browser.test-helpers';
import { appOwnedBy, CONSOLE, mailTo } from './console-visitor.test-helpers';

/**
 * The console in a real headless Chromium (Debian's, installed by the test setup when missing),
 * driven by accessible names as a person would: sign in through the emailed link, open an app,
 * get 404 for an app of someone else, sign out; on a phone-width screen too. Screenshots of the
 * pages go to .data/screenshots.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('console in a browser (e2e)', () => {
  it('signs an owner in through the emailed link, shows the app, 404 for another, and signs out', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Widgets Inc');
    const otherApp = await appOwnedBy(`${unique('other.')}@widgets.example`, 'Someone Else');
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(CONSOLE);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-sign-in.png'), fullPage: true });
      await signIn(page, owner);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-apps.png'), fullPage: true });
      expect(await page.getByRole('link', { name: 'Someone Else' }).count()).toBe(0);

      await page.getByRole('link', { name: 'Widgets Inc' }).click();
      await page.getByRole('heading', { name: 'Widgets Inc' }).waitFor();
      expect(page.url()).toBe(`${CONSOLE}/apps/${appId}`);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-app-overview.png'), fullPage: true });

      const response = await page.goto(`${CONSOLE}/apps/${otherApp}`);
      expect(response?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Not found' }).waitFor();

      const cookies = await context.cookies(CONSOLE);
      expect(cookies.find((c) => c.name === 'console_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Email').waitFor();
      await page.goto(`${CONSOLE}/apps/${appId}`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      await context.close();
    }
  }, 60_000);

  it('lets an owner invite a member, who accepts by the emailed link, sees the app and cannot invite', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const member = `${unique('member.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Team App');
    const ownerContext = await browser.newContext();
    const memberContext = await browser.newContext();
    try {
      const ownerPage = await ownerContext.newPage();
      await signIn(ownerPage, owner);
      await ownerPage.getByRole('link', { name: 'Team App' }).click();
      await ownerPage.getByRole('link', { name: 'Members' }).click();
      await ownerPage.getByLabel('Email address to invite').fill(member);
      await ownerPage.getByRole('button', { name: 'Invite' }).click();
      await ownerPage.getByRole('heading', { name: 'Invited' }).waitFor();
      await ownerPage.screenshot({ path: path.join(SCREENSHOTS, 'console-members.png'), fullPage: true });

      const [invitation] = await eventually(async () => {
        const caught = await mailTo(member);
        return caught.length ? caught : null;
      }, 15_000);
      expect(invitation.subject).toBe('You are invited to Team App in the developer console');
      const memberPage = await memberContext.newPage();
      await memberPage.goto(/https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+/.exec(invitation.text)![0]);
      await memberPage.getByRole('button', { name: 'Accept the invitation' }).click();
      await memberPage.getByRole('heading', { name: 'Team App' }).waitFor();
      expect(memberPage.url()).toBe(`${CONSOLE}/apps/${appId}`);
      await memberPage.getByRole('link', { name: 'Members' }).click();
      expect(await memberPage.getByLabel('Email address to invite').count()).toBe(0);

      // The owner sees who joined in the app's recent changes.
      await ownerPage.goto(`${CONSOLE}/apps/${appId}`);
      await ownerPage.getByText(`${member} accepted the invitation`).waitFor();
      await ownerPage.getByText(`${owner} invited ${member}`).waitFor();
    } finally {
      await ownerContext.close();
      await memberContext.close();
    }
  }, 60_000);

  it('creates a key shown once, uses it against the API, sees it last used, meets the 2-per-environment rule, revokes it', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Keys App');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, owner);
      await page.getByRole('link', { name: 'Keys App' }).click();
      await page.getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();

      const createKey = async (environment: 'sandbox' | 'live') => {
        await page.goto(`${CONSOLE}/apps/${appId}/keys`);
        await page.getByLabel('Environment').selectOption(environment);
        await page.getByRole('button', { name: 'Create key' }).click();
      };
      await createKey('sandbox');
      await page.getByRole('heading', { name: 'API key created' }).waitFor();
      const key = await page.getByLabel('API key (shown once: copy it now)').inputValue();
      expect(key).toMatch(/^qk_sb_/);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-key-created.png'), fullPage: true });

      // Shown once: the list holds only its prefix, never used yet.
      await page.getByRole('link', { name: 'Back to the keys' }).click();
      const row = page.getByRole('row', { name: /^Key qk_sb_/ });
      expect(await row.textContent()).not.toContain(key);
      expect(await row.getByRole('cell').nth(4).textContent()).toBe('never');

      expect((await api('GET', '/consents', key)).status).toBe(200);
      const lastUsed = await eventually(async () => {
        await page.reload();
        return row
          .getByRole('cell')
          .nth(4)
          .locator('time')
          .getAttribute('datetime', { timeout: 1_000 })
          .catch(() => null);
      }, 15_000);
      expect(Date.parse(lastUsed)).toBeGreaterThan(Date.now() - 60_000);
      expect((await row.getByRole('cell').nth(4).textContent())?.trim()).toBe('just now');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-keys.png'), fullPage: true });

      // A second sandbox key is fine; a third is the rule, explained.
      await createKey('sandbox');
      await page.getByRole('heading', { name: 'API key created' }).waitFor();
      await createKey('sandbox');
      await page.getByRole('alert').filter({ hasText: 'already has 2 active sandbox keys' }).waitFor();

      await page.goto(`${CONSOLE}/apps/${appId}/keys`);
      await row
        .first()
        .getByRole('button', { name: /^Revoke qk_sb_/ })
        .click();
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      expect(
        await page
          .getByRole('row', { name: /^Key qk_sb_/ })
          .filter({ hasText: 'revoked' })
          .count(),
      ).toBe(1);
      const refused = await api('GET', '/consents', key);
      expect([refused.status, refused.body.error.code]).toEqual([401, 'invalid_api_key']);

      // Who did what, on the overview.
      await page.goto(`${CONSOLE}/apps/${appId}`);
      await page.getByText(new RegExp(`${owner.replace(/[.]/g, '\\.')} revoked the API key sandbox key_`)).waitFor();
      expect(await page.getByText(`${owner} created the API key sandbox`).count()).toBe(2);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('adds a webhook endpoint against the test receiver, sends a test event, sees the delivery and replays it', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Hooks App');
    const receiver = await startWebhookReceiver(4);
    const hookPath = `/${unique('hook-')}`;
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, owner);
      await page.goto(`${CONSOLE}/apps/${appId}/webhooks`);
      await page.getByLabel('Endpoint URL').fill(`https://${TEST_WEBHOOK_HOSTS[4]}${hookPath}`);
      await page.getByLabel('Verify token').fill(unique('token-'));
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByRole('heading', { name: 'Endpoint added' }).waitFor();
      expect(await page.getByLabel('Signing secret (shown once: copy it now)').inputValue()).toMatch(/^whsec_/);
      await page.getByRole('link', { name: 'Back to the endpoints' }).click();
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-webhooks.png'), fullPage: true });

      await page.getByRole('button', { name: `Send a test event to https://${TEST_WEBHOOK_HOSTS[4]}${hookPath}` }).click();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= 1, 15_000);
      const delivered = await eventually(async () => {
        await page.reload();
        const row = page.getByRole('row').filter({ hasText: 'webhook.test' });
        return (await row.count()) === 1 && (await row.textContent())?.includes('delivered') ? row : null;
      }, 15_000);
      expect(await delivered.textContent()).toContain('200');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-deliveries.png'), fullPage: true });

      // Each delivery's attempts: time, answer, duration (the detail page's own test shows the rest).
      await delivered.getByRole('link', { name: /^wd_/ }).click();
      const attempt = page.getByRole('row', { name: 'Attempt 1', exact: true });
      await attempt.waitFor();
      expect(await page.getByRole('row', { name: /^Attempt \d+$/ }).count()).toBe(1);
      expect(await attempt.textContent()).toMatch(/^\s*1\s.*HTTP 200.*\d+ ms/s);
      await page.goBack();

      await delivered.getByRole('button', { name: /^Replay / }).click();
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      await receiver.waitFor(() => requestsTo(receiver, hookPath).length >= 2, 15_000);
      const [first, second] = requestsTo(receiver, hookPath).map((r) => JSON.parse(r.rawBody.toString('utf8')));
      expect(second.id).toBe(first.id); // a replay sends the same event again
    } finally {
      await context.close();
      await receiver.close();
    }
  }, 60_000);

  it('edits the business profile and uploads an avatar through the media flow', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Profile App');
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await signIn(page, owner);
      await page.goto(`${CONSOLE}/apps/${appId}`);
      await page.getByRole('link', { name: 'Business profile' }).click();
      await page.getByRole('heading', { name: 'Business profile' }).waitFor();
      await page.getByLabel('Display name').fill('Profile App Renamed');
      await page.getByLabel('About').fill('Order updates and support.');
      await page.getByLabel('Website URL').fill('https://shop.widgets.example/contact');
      await page.getByLabel(/^New avatar/).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: ONE_PIXEL_PNG });
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByRole('heading', { name: 'Business profile' }).waitFor();
      expect(await page.getByLabel('Display name').inputValue()).toBe('Profile App Renamed');
      expect(await page.getByRole('definition').filter({ hasText: 'shop.widgets.example' }).count()).toBe(1);
      const avatarUrl = await page.getByRole('link', { name: 'The current avatar' }).getAttribute('href');
      const avatar = await fetch(avatarUrl!);
      expect([avatar.status, Buffer.from(await avatar.arrayBuffer()).equals(ONE_PIXEL_PNG)]).toEqual([200, true]);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-business-profile.png'), fullPage: true });

      // The API's rule, in words: a website that is not an absolute http(s) URL.
      await page.getByLabel('Website URL').fill('shop.widgets.example');
      await page.getByRole('button', { name: 'Save profile' }).click();
      await page.getByRole('alert').filter({ hasText: 'The website URL must be an absolute http(s) URL.' }).waitFor();

      await page.goto(`${CONSOLE}/apps/${appId}`);
      await page.getByText(`${owner} updated the business profile`).waitFor();
      // The apps list follows the new display name (from profile.events).
      await eventually(async () => {
        await page.goto(`${CONSOLE}/apps`);
        return (await page.getByRole('link', { name: 'Profile App Renamed' }).count()) === 1;
      }, 15_000);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('fits a phone-width screen', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    await appOwnedBy(owner, 'A business with a rather long display name');
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      await signIn(page, owner);
      // Evaluated in the page (this program has no DOM types): how far the page is wider than the screen.
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'console-apps-phone.png'), fullPage: true });
    } finally {
      await context.close();
    }
  }, 60_000);
});
