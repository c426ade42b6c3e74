import path from 'node:path';
import type { Browser } from 'playwright-core';
import { unique } from '#platform/testing';
import { launchChromium, SCREENSHOTS, signIn } from './console-browser.test-helpers';
import { appOwnedBy, CONSOLE, invitationLinks } from './console-visitor.test-helpers';

/** In headless Chromium: an owner sees a waiting invitation (who sent it, when), withdraws it, and its link says why it no longer works. */
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('console invitations in a browser (e2e)', () => {
  it('an owner sees the waiting invitation with its sender and time, withdraws it, and the link is refused in words', async () => {
    const owner = `${unique('owner.')}@widgets.example`;
    const invitee = `${unique('invitee.')}@widgets.example`;
    const appId = await appOwnedBy(owner, 'Invites App');
    const ownerContext = await browser.newContext();
    const inviteeContext = await browser.newContext();
    try {
      const ownerPage = await ownerContext.newPage();
      await signIn(ownerPage, owner);
      await ownerPage.goto(`${CONSOLE}/apps/${appId}/members`);
      await ownerPage.getByLabel('Email address to invite').fill(invitee);
      await ownerPage.getByRole('button', { name: 'Invite' }).click();

      const item = ownerPage.getByRole('listitem').filter({ hasText: invitee });
      // Who sent it and when, as people read it ("just now"), the exact UTC time in the title.
      expect(await item.textContent({ timeout: 10_000 })).toMatch(new RegExp(`invited by ${owner.replace(/[.]/g, '\\.')} just now;`));
      expect(await item.locator('time').first().getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/);
      await ownerPage.screenshot({ path: path.join(SCREENSHOTS, 'console-invitation-waiting.png'), fullPage: true });
      const [link] = await invitationLinks(invitee);

      await item.getByRole('button', { name: `Withdraw the invitation of ${invitee}` }).click();
      await ownerPage.getByRole('heading', { name: 'Members' }).waitFor();
      expect(await ownerPage.getByRole('listitem').filter({ hasText: invitee }).count()).toBe(0);

      const inviteePage = await inviteeContext.newPage();
      // Opening the dead link says why at once: nothing to accept.
      const answer = await inviteePage.goto(`${CONSOLE}${link}`);
      expect(answer?.status()).toBe(410);
      expect(await inviteePage.getByRole('button', { name: 'Accept the invitation' }).count()).toBe(0);
      await inviteePage.getByRole('heading', { name: 'This invitation no longer works' }).waitFor();
      await inviteePage.getByRole('alert').filter({ hasText: 'An owner of the app withdrew this invitation.' }).waitFor();
      await inviteePage.screenshot({ path: path.join(SCREENSHOTS, 'console-invitation-refused.png'), fullPage: true });

      await ownerPage.goto(`${CONSOLE}/apps/${appId}`);
      await ownerPage.getByText(`${owner} withdrew the invitation of ${invitee}`).waitFor();
    } finally {
      await ownerContext.close();
      await inviteeContext.close();
    }
  }, 60_000);
});
