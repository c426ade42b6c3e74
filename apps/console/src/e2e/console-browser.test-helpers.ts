import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '#platform/testing';
import { CONSOLE, mailTo } from './console-visitor.test-helpers';

/** Where the browser tests leave their screenshots of the pages. */
export const SCREENSHOTS = path.resolve(__dirname, '../../../../.data/screenshots');

/** Debian's Chromium (global setup installs it and names it in CHROMIUM_PATH), with the screenshots folder ready. */
export async function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/** Signs `email` in on `page` through the form and the emailed link, as a person would. */
export async function signIn(page: Page, email: string): Promise<void> {
  const before = (await mailTo(email)).length;
  await page.goto(CONSOLE);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('status').filter({ hasText: 'a sign-in link is on its way' }).waitFor();
  const [mail] = await eventually(async () => {
    const caught = await mailTo(email);
    return caught.length > before ? caught : null;
  }, 15_000);
  const link = /https?:\/\/\S+\/sign-in\/[A-Za-z0-9_-]+/.exec(mail.text)![0];
  await page.goto(link);
  await page.getByRole('button', { name: 'Continue signing in' }).click();
  await page.getByRole('heading', { name: 'Your apps' }).waitFor();
}
