/**
 * The test CA and receiver themselves: certificates made once and reused, reissued for new names
 * by the same CA, safe for concurrent processes; the receiver's default answers, waitFor and close.
 */
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { HttpsReceiver, testCertificates, type TestCertificates } from './https-receiver';

const MODULE = path.join(__dirname, 'https-receiver.ts');
const YEAR_MS = 365 * 24 * 3600 * 1000;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'test-certs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The leaf is signed by the CA in caFile, matches its key, and is valid for `name`. */
function expectConsistent(certs: TestCertificates, name = 'hooks.local.test'): void {
  const ca = new X509Certificate(readFileSync(certs.caFile, 'utf8'));
  expect(ca.toString()).toBe(new X509Certificate(certs.caPem).toString());
  const leaf = new X509Certificate(certs.certPem);
  expect(leaf.verify(ca.publicKey)).toBe(true);
  expect(leaf.checkPrivateKey(createPrivateKey(certs.keyPem))).toBe(true);
  expect(leaf.checkHost(name)).toBeDefined();
}

describe('testCertificates', () => {
  it('makes a CA and a leaf for *.local.test, hooks.local.test and localhost, valid for 10 years', () => {
    const certs = testCertificates(dir);
    expectConsistent(certs);
    const leaf = new X509Certificate(certs.certPem);
    expect(leaf.subjectAltName).toBe('DNS:*.local.test, DNS:hooks.local.test, DNS:localhost');
    expect(leaf.checkHost('any.local.test')).toBeDefined();
    expect(leaf.ca).toBe(false);
    expect(new X509Certificate(certs.caPem).ca).toBe(true);
    expect(new Date(leaf.validTo).getTime() - Date.now()).toBeGreaterThan(9.9 * YEAR_MS);
  });

  it('reuses what is on disk', () => {
    const first = testCertificates(dir);
    const written = statSync(path.join(dir, 'test-certs.json')).mtimeMs;
    expect(testCertificates(dir)).toEqual(first);
    expect(testCertificates(dir, ['other.local.test'])).toEqual(first); // the wildcard already covers it
    expect(statSync(path.join(dir, 'test-certs.json')).mtimeMs).toBe(written);
  });

  it('reissues the leaf from the same CA for a name it lacks, keeping the names it had', () => {
    const first = testCertificates(dir, ['a.example']);
    const second = testCertificates(dir, ['b.example']);
    expect(second.caPem).toBe(first.caPem);
    expect(second.caFile).toBe(first.caFile);
    expect(second.certPem).not.toBe(first.certPem);
    expectConsistent(second, 'a.example');
    expectConsistent(second, 'b.example');
  });

  it('starts over from an unreadable file', () => {
    writeFileSync(path.join(dir, 'test-certs.json'), '{"caPem": "not a certificate"');
    expectConsistent(testCertificates(dir));
  });

  it('gives every one of several processes starting at once a consistent set', async () => {
    const script = `import(${JSON.stringify(MODULE)}).then((m) => process.stdout.write(JSON.stringify(m.testCertificates(${JSON.stringify(dir)}))))`;
    const outputs = await Promise.all(
      Array.from({ length: 4 }, () => promisify(execFile)(process.execPath, ['--experimental-transform-types', '--no-warnings', '-e', script])),
    );
    for (const { stdout } of outputs) expectConsistent(JSON.parse(stdout) as TestCertificates);
    expectConsistent(testCertificates(dir));
  });
});

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
