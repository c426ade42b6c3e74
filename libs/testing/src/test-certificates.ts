import { createPrivateKey, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createCertificateAuthority, issueServerCertificate } from './certificate-authority.js';

/**
 * The test CA and server certificate of the local HTTPS webhook receiver (tests and the dev stack),
 * made by ./certificate-authority.js (the openssl CLI).
 */

export interface TestCertificates {
  caPem: string;
  /** The CA alone, for WEBHOOK_CA_FILE. Named by its fingerprint, so it never changes under a reader. */
  caFile: string;
  certPem: string;
  keyPem: string;
}

/** Names every leaf covers; architecture section 6 pins hooks.local.test (and friends) to local ports in dev and test. */
export const TEST_CERT_NAMES = ['*.local.test', 'hooks.local.test', 'localhost'];

const BUNDLE_FILE = 'test-certs.json';
const CA_DAYS = 7300;
const LEAF_DAYS = 3650;
/** Reused material must stay valid at least this long, so no run starts with a certificate about to lapse. */
const MIN_REMAINING_MS = 30 * 24 * 3600 * 1000;

interface Bundle {
  caKeyPem: string;
  caPem: string;
  keyPem: string;
  certPem: string;
}

/**
 * A local CA and a leaf certificate for TEST_CERT_NAMES plus `hostnames`, signed by it: made once
 * in `dir` and reused while valid and covering every name asked for. When a name is missing the
 * leaf is reissued by the same CA (covering the old names too), so CA files already handed out stay
 * good. Validity is judged by the real clock, as TLS does, never by the platform's test clock.
 *
 * Lock-free for concurrent callers (parallel Jest workers): the four PEMs live in one JSON file
 * replaced by rename, so a reader sees one consistent set; if two callers generate at once, each
 * returns its own set and the last rename wins on disk.
 */
export function testCertificates(dir: string, hostnames: string[] = []): TestCertificates {
  const wanted = [...new Set([...TEST_CERT_NAMES, ...hostnames].map((name) => name.toLowerCase()))];
  for (const name of wanted)
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(name)) throw new Error(`testCertificates: ${JSON.stringify(name)} is not a DNS name`);
  mkdirSync(dir, { recursive: true });
  const existing = readBundle(path.join(dir, BUNDLE_FILE));
  let bundle: Bundle;
  if (existing && caUsable(existing) && leafUsable(existing, wanted)) {
    bundle = existing;
  } else {
    const keepCa = existing !== null && caUsable(existing);
    const ca = keepCa ? { caKeyPem: existing.caKeyPem, caPem: existing.caPem } : generateCa();
    const names = keepCa ? [...new Set([...wanted, ...leafDnsNames(existing)])] : wanted;
    bundle = { ...ca, ...issueLeaf(ca, names) };
    writeAtomically(path.join(dir, BUNDLE_FILE), JSON.stringify(bundle, null, 2));
  }
  const fingerprint = new X509Certificate(bundle.caPem).fingerprint256.replace(/:/g, '').slice(0, 16).toLowerCase();
  const caFile = path.join(dir, `ca-${fingerprint}.pem`);
  if (!existsSync(caFile) || readFileSync(caFile, 'utf8') !== bundle.caPem) writeAtomically(caFile, bundle.caPem);
  return { caPem: bundle.caPem, caFile, certPem: bundle.certPem, keyPem: bundle.keyPem };
}

function readBundle(file: string): Bundle | null {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Partial<Bundle>;
    if ([raw.caKeyPem, raw.caPem, raw.keyPem, raw.certPem].every((pem) => typeof pem === 'string')) return raw as Bundle;
  } catch {
    // missing or unreadable: made afresh
  }
  return null;
}

function validLongEnough(cert: X509Certificate): boolean {
  const now = Date.now();
  return new Date(cert.validFrom).getTime() <= now && new Date(cert.validTo).getTime() - now > MIN_REMAINING_MS;
}

function caUsable(bundle: Bundle): boolean {
  try {
    const ca = new X509Certificate(bundle.caPem);
    return ca.ca && validLongEnough(ca) && ca.checkPrivateKey(createPrivateKey(bundle.caKeyPem));
  } catch {
    return false;
  }
}

function leafUsable(bundle: Bundle, names: string[]): boolean {
  try {
    const ca = new X509Certificate(bundle.caPem);
    const leaf = new X509Certificate(bundle.certPem);
    if (!leaf.checkIssued(ca) || !leaf.verify(ca.publicKey) || !leaf.checkPrivateKey(createPrivateKey(bundle.keyPem)) || !validLongEnough(leaf)) return false;
    const dnsNames = leafDnsNames(bundle);
    return names.every((name) => (name.startsWith('*.') ? dnsNames.includes(name) : leaf.checkHost(name) !== undefined));
  } catch {
    return false;
  }
}

function leafDnsNames(bundle: Bundle): string[] {
  try {
    const san = new X509Certificate(bundle.certPem).subjectAltName ?? '';
    return san
      .split(', ')
      .filter((entry) => entry.startsWith('DNS:'))
      .map((entry) => entry.slice(4).toLowerCase());
  } catch {
    return [];
  }
}

function generateCa(): { caKeyPem: string; caPem: string } {
  // A random CN, so two test CAs on one machine are never mistaken for each other in a chain.
  const ca = createCertificateAuthority({ commonName: `Platform Test CA ${randomBytes(4).toString('hex')}`, days: CA_DAYS });
  return { caKeyPem: ca.keyPem, caPem: ca.certPem };
}

function issueLeaf(ca: { caKeyPem: string; caPem: string }, names: string[]): { keyPem: string; certPem: string } {
  const commonName = names.find((name) => !name.startsWith('*.')) ?? names[0];
  return issueServerCertificate({ keyPem: ca.caKeyPem, certPem: ca.caPem }, { commonName, dnsNames: names, days: LEAF_DAYS });
}

/** Write to a unique temp name beside the target, then rename: readers see the old or the new file, never half of one. */
function writeAtomically(file: string, content: string): void {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  renameSync(temp, file);
}
