/** The test receiver itself: its default answers, waitFor and close. */
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { HttpsReceiver } from './https-receiver';
import { testCertificates, type TestCertificates } from './test-certificates';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'test-certs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('HttpsReceiver', () => {
  let certs: TestCertificates;
  let receiver: HttpsReceiver;
  let agent: https.Agent;

  beforeEach(async () => {
    certs = testCertificates(dir);
    receiver = await HttpsReceiver.start({ port: 0, certPem: certs.certPem, keyPem: certs.keyPem });
    agent = new https.Agent({ keepAlive: true, ca: certs.caPem });
  });
  afterEach(async () => {
    agent.destroy();
    await receiver.close();
  });

  function get(pathAndQuery: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      https
        .get({ agent, host: '127.0.0.1', port: receiver.port, servername: 'hooks.local.test', path: pathAndQuery }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  }

  it('echoes the challenge of a subscribe GET by default, and answers anything else 200 with no body', async () => {
    expect(await get('/hooks?svc.mode=subscribe&svc.verify_token=t&svc.challenge=abc%2B1')).toEqual({ status: 200, body: 'abc+1' });
    expect(await get('/hooks?svc.challenge=abc')).toEqual({ status: 200, body: '' });
    expect(receiver.requests.map((r) => [r.connectionId, r.servername])).toEqual([
      [1, 'hooks.local.test'],
      [1, 'hooks.local.test'],
    ]);
    expect(receiver.tlsConnections).toBe(1);
  });

  it('answers as told, and a failing handler with 500', async () => {
    receiver.respond((req) => ({ status: 418, body: req.path, headers: { 'x-test': '1' } }));
    expect(await get('/teapot')).toEqual({ status: 418, body: '/teapot' });
    receiver.respond(() => {
      throw new Error('boom');
    });
    expect(await get('/')).toEqual({ status: 500, body: 'receiver handler failed: boom' });
  });

  it('waitFor resolves once the condition holds, and otherwise says what it saw', async () => {
    const waiting = receiver.waitFor((requests) => requests.some((r) => r.path === '/second'));
    await get('/first');
    await get('/second');
    expect((await waiting).map((r) => r.path)).toEqual(['/first', '/second']);
    await expect(receiver.waitFor((requests) => requests.length > 5, 100)).rejects.toThrow(
      'HttpsReceiver.waitFor: condition not met within 100 ms; 2 request(s) received, the last 2: GET /first (connection 1); GET /second (connection 1)',
    );
  });

  it('close() ends kept-alive connections and answers still waiting', async () => {
    await get('/idle');
    const [socket] = Object.values(agent.freeSockets).flat();
    const socketClosed = new Promise((resolve) => socket!.once('close', resolve));
    receiver.respond(() => ({ status: 200, delayMs: 60_000 }));
    const pending = get('/slow').catch((error: Error) => error);
    await receiver.waitFor((requests) => requests.some((r) => r.path === '/slow'));
    await receiver.close();
    await socketClosed;
    expect(await pending).toMatchObject({ code: 'ECONNRESET' }); // an Error from Node's realm, so not instanceof Jest's
  });
});
