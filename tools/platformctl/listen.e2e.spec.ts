import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '#platform/sdk';
import {
  admin,
  api,
  appWithTester,
  eventually,
  expectError,
  expectStatus,
  publicUrl,
  queryDatabase,
  registerWebhook,
  requestsTo,
  sendMessage,
  simAppAction,
  startWebhookReceiver,
  type HttpsReceiver,
} from '#platform/testing';

const CLI = path.join(__dirname, 'platformctl.mjs');
const SECRET_LINE = /^Ready\. Your webhook signing secret is (whsec_[0-9A-Za-z]{32}) \(stable for this key\)$/m;

interface Forwarded {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: { id: string; type: string; data: Record<string, unknown> };
}

const localApps: (() => Promise<void>)[] = [];

/** A plain-HTTP local app on 127.0.0.1 that records each request's raw body and headers and answers 200. */
async function startLocalApp(): Promise<{ url: (p: string) => string; requests: Forwarded[]; close: () => Promise<void> }> {
  const requests: Forwarded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({ path: req.url ?? '', headers: req.headers, body, json: JSON.parse(body.toString('utf8')) });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
  localApps.push(close);
  return { url: (p) => `http://127.0.0.1:${port}${p}`, requests, close };
}

interface Listener {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** `platformctl listen` as a developer runs it, `stateDir` as its XDG_STATE_HOME (the cursor goes to `<stateDir>/platformctl`). */
function listen(args: string[], stateDir: string): Listener {
  const child = spawn(process.execPath, [CLI, 'listen', ...args], {
    env: { PATH: process.env.PATH, XDG_STATE_HOME: stateDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

const running: Listener[] = [];
const stateDirs: string[] = [];
function startListening(args: string[], stateDir = mkdtempSync(path.join(os.tmpdir(), 'listen-e2e-'))): Listener {
  stateDirs.push(stateDir);
  const listener = listen(args, stateDir);
  running.push(listener);
  return listener;
}

async function secretOf(listener: Listener): Promise<string> {
  return (await eventually(async () => SECRET_LINE.exec(listener.output())?.[1], 20_000)) as string;
}

/** The message.status `sent` event of a message among the forwarded requests. */
const sentEventOf = (requests: Forwarded[], messageId: string) =>
  requests.filter((r) => r.json.type === 'message.status' && r.json.data.id === messageId && r.json.data.status === 'sent');

afterEach(async () => {
  for (const listener of running.splice(0)) {
    listener.child.kill('SIGKILL');
    await listener.exited;
  }
  for (const close of localApps.splice(0)) await close();
});
afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

describe('platformctl listen (e2e)', () => {
  let endpointReceiver: HttpsReceiver;
  beforeAll(async () => {
    endpointReceiver = await startWebhookReceiver(4);
  });
  afterAll(async () => {
    await endpointReceiver?.close();
  });

  it('forwards the events a registered endpoint gets, same ids and bytes, signed with the printed secret; a SIGKILLed run resumes without losing events', async () => {
    const { app, appUserId } = await appWithTester();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 4 });
    const local = await startLocalApp();
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'listen-e2e-'));
    const args = ['--forward-to', local.url('/hook'), '--api-url', publicUrl(), '--key', app.sandboxKey];

    const first = startListening(args, stateDir);
    const secret = await secretOf(first);
    const firstId = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'first' }), 202).body.id as string;
    const [forwarded] = await eventually(async () => {
      const found = sentEventOf(local.requests, firstId);
      return found.length > 0 ? found : null;
    }, 20_000);

    // The same event, byte for byte, as the registered endpoint got it.
    const [delivered] = await eventually(async () => {
      const found = requestsTo(endpointReceiver, hook.path).filter((r) => JSON.parse(r.rawBody.toString('utf8')).data.id === firstId);
      return found.length > 0 ? found : null;
    }, 20_000);
    expect(forwarded.json.id).toMatch(/^evt_/);
    expect(forwarded.body.equals(delivered.rawBody)).toBe(true);
    expect(forwarded.headers['svc-event-id']).toBe(forwarded.json.id);
    expect(forwarded.headers['svc-event-type']).toBe('message.status');
    expect(forwarded.headers['svc-delivery-id']).toMatch(/^wd_/);
    expect(forwarded.headers['svc-delivery-attempt']).toBe('1');
    expect(forwarded.headers['content-type']).toBe('application/json');
    expect(forwarded.path).toBe('/hook');

    // Receivers written for Stripe's scheme and for Standard Webhooks verify it with the printed secret.
    const stripe = new Stripe('sk_test_unused');
    expect(stripe.webhooks.constructEvent(forwarded.body, forwarded.headers['svc-signature'] as string, secret).id).toBe(forwarded.json.id);
    expect(() => stripe.webhooks.constructEvent(forwarded.body, forwarded.headers['svc-signature'] as string, hook.secret)).toThrow();
    const standard = new Webhook(secret).verify(forwarded.body.toString('utf8'), {
      'webhook-id': forwarded.headers['webhook-id'] as string,
      'webhook-timestamp': forwarded.headers['webhook-timestamp'] as string,
      'webhook-signature': forwarded.headers['webhook-signature'] as string,
    });
    expect((standard as { id: string }).id).toBe(forwarded.json.id);
    // And so does the SDK's receiver helper, with the printed secret only.
    expect(verifyWebhook(forwarded.body, forwarded.headers as Record<string, string>, secret).id).toBe(forwarded.json.id);
    expect(() => verifyWebhook(forwarded.body, forwarded.headers as Record<string, string>, hook.secret)).toThrow();
    expect(forwarded.headers['webhook-id']).toBe(forwarded.json.id);
    // One line per event: time, type, id, local status, ms.
    await eventually(async () =>
      new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d  message\\.status +${forwarded.json.id}  -> 200 \\(\\d+ ms\\)$`, 'm').test(first.output()),
    );

    // Killed outright: no chance to save anything on the way out.
    first.child.kill('SIGKILL');
    await first.exited;
    const secondId = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'while down' }), 202).body.id as string;
    // The dispatcher has made the event while nobody listened.
    const [{ event_id: secondEventId }] = await eventually(
      () =>
        queryDatabase<{ event_id: string }>(
          `select event_id from webhook_dispatcher.public_events where app_id = $1 and type = 'message.status' and payload::jsonb #>> '{data,id}' = $2 and payload::jsonb #>> '{data,status}' = 'sent'`,
          [app.appId, secondId],
        ).then((rows) => (rows.length > 0 ? rows : null)),
      20_000,
    );

    const second = startListening(args, stateDir);
    expect(await secretOf(second)).toBe(secret);
    const [resumed] = await eventually(async () => {
      const found = sentEventOf(local.requests, secondId);
      return found.length > 0 ? found : null;
    }, 20_000);
    expect(resumed.json.id).toBe(secondEventId);
    expect(stripe.webhooks.constructEvent(resumed.body, resumed.headers['svc-signature'] as string, secret).id).toBe(secondEventId);
    // At least once: every event forwarded is a distinct public event of this app, the first possibly again.
    // (A consent.updated of the tester's opt-in may come too, when the dispatcher read it after the session opened.)
    const ids = local.requests.filter((r) => r.json.type === 'message.status').map((r) => r.json.id);
    expect(new Set(ids)).toEqual(new Set([forwarded.json.id, secondEventId]));
    expect(ids.filter((id) => id === secondEventId)).toHaveLength(1);

    // Ctrl-C ends the session cleanly.
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(second.output()).toContain('Stopped.');
  });

  it('a run killed before it forwarded anything still resumes from where it started, not from the restart', async () => {
    const { app, appUserId } = await appWithTester();
    const local = await startLocalApp();
    const stateDir = mkdtempSync(path.join(os.tmpdir(), 'listen-e2e-'));
    const args = ['--forward-to', local.url('/hook'), '--api-url', publicUrl(), '--key', app.sandboxKey, '--events', 'message.status'];
    const first = startListening(args, stateDir);
    await secretOf(first);
    first.child.kill('SIGKILL');
    await first.exited;
    const messageId = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'nobody listening' }), 202).body.id as string;
    await eventually(
      async () =>
        (
          await queryDatabase(`select 1 from webhook_dispatcher.public_events where app_id = $1 and payload::jsonb #>> '{data,id}' = $2`, [
            app.appId,
            messageId,
          ])
        ).length > 0,
      20_000,
    );
    const second = startListening(args, stateDir);
    await secretOf(second);
    await eventually(async () => sentEventOf(local.requests, messageId).length === 1, 20_000);
  });

  it('--events forwards only the types asked for; a listen session counts against no endpoint limit', async () => {
    const { app, userId, appUserId } = await appWithTester();
    const local = await startLocalApp();
    const common = ['--api-url', publicUrl(), '--key', app.sandboxKey];
    const everything = startListening(['--forward-to', local.url('/all'), ...common]);
    const consentOnly = startListening(['--forward-to', local.url('/consent'), '--events', 'consent.updated', ...common]);
    // One secret per key, whatever the filter.
    expect(await secretOf(consentOnly)).toBe(await secretOf(everything));

    const messageId = expectStatus(await sendMessage(app.sandboxKey, { to: { appUserId }, type: 'text', text: 'hi' }), 202).body.id as string;
    await eventually(
      async () =>
        sentEventOf(
          local.requests.filter((r) => r.path === '/all'),
          messageId,
        ).length > 0,
      20_000,
    );
    expectStatus(await simAppAction(userId, app.appId, 'stop'), 200);
    const isStop = (r: Forwarded) => r.json.type === 'consent.updated' && r.json.data.status === 'opted_out';
    await eventually(
      async () => local.requests.some((r) => r.path === '/consent' && isStop(r)) && local.requests.some((r) => r.path === '/all' && isStop(r)),
      20_000,
    );
    // Events reach a session in the order they were recorded: the message.status came first, so it would have arrived by now.
    expect(local.requests.filter((r) => r.path === '/consent').map((r) => r.json.type)).toEqual(['consent.updated']);

    // Two listen sessions are open; the app still registers its five endpoints, and no sixth.
    for (let i = 0; i < 5; i++) await registerWebhook(app, ['message.status'], { hostIndex: 4 });
    const sixth = await api('POST', '/webhooks', app.sandboxKey, {
      url: 'https://hooks5.local.test/sixth',
      verifyToken: 'token-sixth',
      events: ['message.status'],
    });
    expectError(sixth, 409, 'subscription_limit_reached');
    expect(expectStatus(await api('GET', '/webhooks', app.sandboxKey), 200).body.data).toHaveLength(5);
  });

  it('refuses live keys: the CLI before connecting (exit 3), and the API with 403 key_environment_mismatch', async () => {
    const { app } = await appWithTester();
    const live = expectStatus(await admin('POST', `/apps/${app.appId}/keys`, { environment: 'live' }), 201).body.key as string;
    const cli = startListening(['--forward-to', 'http://127.0.0.1:9/hook', '--api-url', publicUrl(), '--key', live]);
    expect(await cli.exited).toBe(3);
    expect(cli.output()).toContain('sandbox key');

    // Approved, so the live key passes the pipeline's own environment check and meets the route's.
    expectStatus(await admin('POST', `/apps/${app.appId}/status`, { action: 'approve' }), 200);
    const refused = await eventually(async () => {
      const res = await api('GET', '/listen', live);
      return res.body?.error?.message?.includes('sandbox') ? res : null;
    });
    expectError(refused, 403, 'key_environment_mismatch');
    // A bad filter is a 400 before any stream starts.
    expectError(await api('GET', '/listen?events=message.sent', app.sandboxKey), 400, 'invalid_request');
  });
});
