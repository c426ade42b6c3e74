/**
 * The test CA: certificates made once and reused, reissued for new names by the same CA, safe for
 * concurrent processes.
 */
import { execFile } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { testCertificates, type TestCertificates } from './test-certificates';

const MODULE = path.join(__dirname, 'test-certificates.ts');
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
