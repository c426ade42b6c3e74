/**
 * A newcomer's first run, as the README tells it: `npm start` in a checkout without a build folder,
 * then every URL it prints. The checkout is a copy of this one's files (what git tracks or would,
 * sharing node_modules), started by its own `tools/dev/start.mjs` on ports, a database and a Kafka
 * namespace of its own; the docs page is rendered in Chromium. A normal start logs no error line.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { chromium } from 'playwright-core';
import { eventually, waitForExit } from '#platform/testing';

const ROOT = path.resolve(__dirname, '../..');
// Clear of the jest stack's ports (TEST_BASE_PORT … +96) and of the supervisor test's (+200).
const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 300;
const TAG = 'first-run';
const DATABASE = `${process.env.TEST_DATABASE ?? 'platform_test'}_first_run`;
const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CHECKOUT = path.join(ROOT, '.data/first-run-checkout');
// Only what a developer's shell would give: the jest stack's variables must not reach these apps.
const SHELL_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A checkout as a clone would be: the files git tracks or would track, no dist/, no .data/; node_modules shared. */
function freshCheckout(): void {
  rmSync(CHECKOUT, { recursive: true, force: true });
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    if (!existsSync(path.join(ROOT, file))) continue;
    mkdirSync(path.dirname(path.join(CHECKOUT, file)), { recursive: true });
    cpSync(path.join(ROOT, file), path.join(CHECKOUT, file));
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(CHECKOUT, 'node_modules'));
}

/** Every line of the start's output and of its apps' logs at level error. */
function errorLines(output: string): string[] {
  const logDir = path.join(CHECKOUT, '.data/logs');
  const logs = existsSync(logDir) ? readdirSync(logDir).filter((name) => name.startsWith(`${TAG}-`)) : [];
  const lines = [...output.split('\n'), ...logs.flatMap((name) => readFileSync(path.join(logDir, name), 'utf8').split('\n'))];
  return lines.filter((line) => line.includes('"level":"error"'));
}

describe('the first run (npm start, as the README says)', () => {
  let start: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    await adminQuery(`drop database if exists ${DATABASE} with (force)`);
    await adminQuery(`create database ${DATABASE}`);
    freshCheckout();
  });

  afterAll(async () => {
    // Ctrl-C, as a developer stops it: the start stops its apps and exits.
    if (start && start.exitCode === null && start.signalCode === null) {
      start.kill('SIGINT');
      await waitForExit(start.pid!, 30_000).catch(() => start!.kill('SIGKILL'));
    }
    await adminQuery(`drop database if exists ${DATABASE} with (force)`);
    rmSync(CHECKOUT, { recursive: true, force: true });
  });

  it('builds, starts and prints URLs that all work: the ping curl, the API and its reference, the admin API, the console; no error logged', async () => {
    const args = ['--port', String(BASE_PORT), '--database', DATABASE, '--tag', TAG, '--fresh-namespace', `${DATABASE}_`];
    start = spawn(process.execPath, [path.join(CHECKOUT, 'tools/dev/start.mjs'), ...args], {
      cwd: CHECKOUT,
      env: SHELL_ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    start.stdout!.on('data', (chunk) => (output += chunk));
    start.stderr!.on('data', (chunk) => (output += chunk));
    await eventually(async () => /Ctrl-C/.test(output) || start!.exitCode !== null, 150_000, 200);
    if (start.exitCode !== null) throw new Error(`npm start exited with ${start.exitCode}:\n${output}`);

    const publicApi = output.match(/Public API\s+(\S+)/)?.[1];
    const [, reference, documentUrl] = output.match(/Reference\s+(\S+)\s+\(the OpenAPI document: (\S+)\)/) ?? [];
    const [, adminApi, adminToken] = output.match(/Admin API\s+(\S+)\s+\(Authorization: Bearer (\S+)\)/) ?? [];
    const consoleUrl = output.match(/Console\s+(\S+)/)?.[1];
    const mailLink = output.match(/the link: GET (\S+)\)/)?.[1];
    const curls = [...output.matchAll(/curl -s (\S+) -H "Authorization: Bearer (\S+)"/g)].map(([, url, key]) => ({ url, key }));
    expect({ publicApi, reference, documentUrl, adminApi, adminToken, consoleUrl, mailLink, curls: curls.length }).toEqual({
      publicApi: `http://localhost:${BASE_PORT}/platform/v1`,
      reference: `http://localhost:${BASE_PORT}/platform/v1/docs`,
      documentUrl: `http://localhost:${BASE_PORT}/platform/v1/openapi.json`,
      adminApi: `http://localhost:${BASE_PORT + 1}/admin/v1`,
      adminToken: 'dev-admin-token',
      consoleUrl: `http://localhost:${BASE_PORT + 2}`,
      mailLink: expect.stringContaining(`${adminApi}/mail?to=`),
      curls: 2,
    });

    // The curls, pasted: the ping and the demo user.
    for (const { url, key } of curls) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(await res.json()).toEqual(expect.any(Object));
    }
    // The OpenAPI document every gateway serves.
    const document = await fetch(documentUrl!);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
    // The admin API with its token: the console's sign-in link in the local mail sink.
    const mail = await fetch(mailLink!, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(mail.status).toBe(200);
    // The console's sign-in page.
    const consolePage = await fetch(consoleUrl!);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toMatch(/Sign in/i);

    // The API reference, rendered: every asset it loads is there, and it lists the operations.
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      // The page's own assets (the renderer's footer links a logo from the renderer maker's CDN, which this machine cannot reach).
      const own = (url: string) => url.startsWith(`http://localhost:${BASE_PORT}/`);
      const failed: string[] = [];
      page.on('response', (response) => {
        if (own(response.url()) && response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      page.on('requestfailed', (request) => {
        if (own(request.url())) failed.push(`failed ${request.url()}`);
      });
      await page.goto(reference!);
      await page.getByRole('heading', { name: 'Send a message' }).first().waitFor({ timeout: 30_000 });
      expect(failed).toEqual([]);
    } finally {
      await browser.close();
    }

    expect(errorLines(output)).toEqual([]);
  }, 240_000);
});
