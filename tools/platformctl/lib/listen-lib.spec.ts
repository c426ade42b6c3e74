import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { sseComment, sseEvent, sseRetry } from '../../../apps/gateway/src/listen/sse-frame';

/**
 * The CLI is plain ES modules, which Jest's CommonJS runtime cannot load: each case runs in a Node
 * child that imports the module, and the child's JSON answer is checked here.
 */
function inNode(modules: string[], body: string, input: unknown = null): any {
  const imports = modules.map((m, i) => `import * as m${i} from ${JSON.stringify(pathToFileURL(path.join(__dirname, m)).href)};`).join('\n');
  const script = `${imports}\nconst input = JSON.parse(process.env.CASE_INPUT);\nconst result = await (async () => { ${body} })();\nprocess.stdout.write(JSON.stringify(result));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, CASE_INPUT: JSON.stringify(input) } }).toString(),
  );
}

describe('platformctl listen: SSE reader', () => {
  const body = '{"id":"evt_01JD","type":"message.status","apiVersion":"2026-10-01","created":1,"appId":"app_1","data":{"text":"a: b\\nc é"}}';
  const stream = [
    sseRetry(1000),
    sseEvent({ event: 'session', data: '{"sessionId":"ls_1","secret":"whsec_x"}' }),
    sseComment('keep-alive'),
    sseEvent({ id: 'ls_1.1', event: 'message.status', data: body }),
    sseEvent({ id: 'ls_1.2', event: 'consent.updated', data: 'line one\nline two' }),
  ].join('');

  it('reads back what the gateway writes, byte for byte, however the stream is cut into chunks', () => {
    const results = inNode(
      ['sse-reader.mjs'],
      `const all = [];
       for (const size of [1, 2, 3, 7, 64, input.length]) {
         const reader = new m0.SseReader();
         const events = [];
         for (let i = 0; i < input.length; i += size) events.push(...reader.push(input.slice(i, i + size)));
         all.push({ events, lastEventId: reader.lastEventId, retryMs: reader.retryMs });
       }
       return all;`,
      stream,
    );
    for (const result of results) {
      expect(result.events).toEqual([
        { id: '', event: 'session', data: '{"sessionId":"ls_1","secret":"whsec_x"}' },
        { id: 'ls_1.1', event: 'message.status', data: body },
        { id: 'ls_1.2', event: 'consent.updated', data: 'line one\nline two' },
      ]);
      expect(result.lastEventId).toBe('ls_1.2');
      expect(result.retryMs).toBe(1000);
    }
  });

  it('takes CRLF and CR line ends, a CRLF split between chunks counting once, and defaults the type to message', () => {
    const events = inNode(
      ['sse-reader.mjs'],
      `const r = new m0.SseReader(); return [...r.push('id: 7\\r'), ...r.push('\\ndata: x\\r\\n\\r'), ...r.push('\\ndata:y\\r\\r')];`,
    );
    expect(events).toEqual([
      { id: '7', event: 'message', data: 'x' },
      { id: '7', event: 'message', data: 'y' },
    ]);
  });
});

describe('platformctl listen: options', () => {
  it('--events: every type by default, known types only, no repeats, sorted; anything else is a usage error (exit 2)', () => {
    const result = inNode(
      ['listen-options.mjs'],
      `const attempt = (raw) => { try { return m0.parseEventsOption(raw); } catch (e) { return { exitCode: e.exitCode }; } };
       return [attempt(undefined), attempt('message.status, message.received,message.status'), attempt('message.sent'), attempt(''), attempt('webhook.test')];`,
    );
    expect(result).toEqual([
      ['app.status_changed', 'consent.updated', 'message.received', 'message.status'],
      ['message.received', 'message.status'],
      { exitCode: 2 },
      { exitCode: 2 },
      { exitCode: 2 },
    ]);
  });

  it('--forward-to must be http(s); a live key is refused before anything is sent', () => {
    const result = inNode(
      ['listen-options.mjs'],
      `const attempt = (fn) => { try { return fn(); } catch (e) { return { exitCode: e.exitCode }; } };
       return [attempt(() => m0.parseForwardTo('http://127.0.0.1:4242/hook')), attempt(() => m0.parseForwardTo('ftp://x/')), attempt(() => m0.parseForwardTo('localhost:4242')),
               m0.checkListenKey('qk_sb_abc').refused, typeof m0.checkListenKey('qk_live_abc').refused, attempt(() => m0.checkListenKey(''))];`,
    );
    expect(result).toEqual(['http://127.0.0.1:4242/hook', { exitCode: 2 }, { exitCode: 2 }, null, 'string', { exitCode: 2 }]);
  });

  it('keeps one cursor file per key and filter, named by a hash (the key is not in it)', () => {
    const result = inNode(
      ['listen-state.mjs'],
      `return [m0.stateFile('qk_sb_a', ['message.status'], '/d'), m0.stateFile('qk_sb_a', ['message.status'], '/d'), m0.stateFile('qk_sb_b', ['message.status'], '/d'), m0.stateFile('qk_sb_a', ['consent.updated'], '/d')];`,
    );
    expect(result[0]).toBe(result[1]);
    expect(new Set(result).size).toBe(3);
    expect(result.join('')).not.toContain('qk_sb');
  });
});

describe('platformctl listen: signing', () => {
  it("signs as a delivery: Stripe's constructEvent and the Standard Webhooks library both verify it", () => {
    const secret = 'whsec_0123456789ABCDEFGHIJKLMNOPQRSTUV';
    const payload = '{"id":"evt_01JDTEST","type":"message.status","data":{"x":"é"}}';
    const t = Math.floor(Date.now() / 1000);
    const headers = inNode(
      ['delivery-signing.mjs'],
      `return m0.webhookDeliveryHeaders({ secrets: [input.secret], timestampSeconds: input.t, body: input.payload, eventId: 'evt_01JDTEST', eventType: 'message.status', deliveryId: 'wd_1', attempt: 1 });`,
      { secret, t, payload },
    );
    expect(headers).toMatchObject({
      'Svc-Event-Id': 'evt_01JDTEST',
      'Svc-Event-Type': 'message.status',
      'Svc-Delivery-Id': 'wd_1',
      'Svc-Delivery-Attempt': '1',
      'webhook-id': 'evt_01JDTEST',
      'webhook-timestamp': String(t),
    });
    const stripe = new Stripe('sk_test_unused');
    expect(stripe.webhooks.constructEvent(Buffer.from(payload), headers['Svc-Signature'], secret).id).toBe('evt_01JDTEST');
    expect(() => stripe.webhooks.constructEvent(Buffer.from(payload + ' '), headers['Svc-Signature'], secret)).toThrow();
    const verified = new Webhook(secret).verify(payload, {
      'webhook-id': headers['webhook-id'],
      'webhook-timestamp': headers['webhook-timestamp'],
      'webhook-signature': headers['webhook-signature'],
    });
    expect((verified as { id: string }).id).toBe('evt_01JDTEST');
  });
});
