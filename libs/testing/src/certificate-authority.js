// @ts-check
/**
 * A local certificate authority on the openssl CLI: the one recipe behind the test HTTPS receiver's
 * certificates (test-certificates.ts) and the dev broker's SASL_SSL listener (tools/infra). Plain
 * CommonJS with JSDoc types, so tools/infra can run it before anything is built.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const OPENSSL = '/usr/bin/openssl';

/** @typedef {{ keyPem: string, certPem: string }} KeyAndCertificate */

/**
 * Runs `run` in a scratch directory holding `files` (written 0600), then removes it.
 * @template T
 * @param {Record<string, string>} files
 * @param {(file: (name: string) => string) => T} run
 * @returns {T}
 */
function inScratch(files, run) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'certificates-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(path.join(scratch, name), content, { mode: 0o600 });
    return run((name) => path.join(scratch, name));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** @param {string[]} args */
function openssl(args) {
  // No system openssl.cnf: every setting comes from the files written here.
  execFileSync(OPENSSL, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OPENSSL_CONF: '/dev/null' } });
}

/** A fresh P-256 key, unencrypted PKCS#8 (what Kafka's PEM keystore and Node's TLS read). */
const NEW_EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/**
 * A self-signed CA that may sign leaf certificates only.
 * @param {{ commonName: string, days: number }} options
 * @returns {KeyAndCertificate}
 */
function createCertificateAuthority({ commonName, days }) {
  const config = [
    '[req]',
    'distinguished_name = dn',
    'prompt = no',
    'x509_extensions = v3_ca',
    '[dn]',
    `CN = ${commonName}`,
    '[v3_ca]',
    'basicConstraints = critical, CA:TRUE, pathlen:0',
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
    '',
  ].join('\n');
  return inScratch({ 'ca.cnf': config }, (file) => {
    openssl([
      'req',
      '-x509',
      '-new',
      '-config',
      file('ca.cnf'),
      ...NEW_EC_KEY,
      '-sha256',
      '-days',
      String(days),
      '-keyout',
      file('ca.key'),
      '-out',
      file('ca.pem'),
    ]);
    return { keyPem: readFileSync(file('ca.key'), 'utf8'), certPem: readFileSync(file('ca.pem'), 'utf8') };
  });
}

/**
 * A TLS server certificate for `dnsNames` and `ipAddresses`, signed by `ca`, with a random serial.
 * @param {KeyAndCertificate} ca
 * @param {{ commonName: string, dnsNames: string[], ipAddresses?: string[], days: number }} options
 * @returns {KeyAndCertificate}
 */
function issueServerCertificate(ca, { commonName, dnsNames, ipAddresses = [], days }) {
  const request = ['[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', `CN = ${commonName}`, ''].join('\n');
  const altNames = [...dnsNames.map((name) => `DNS:${name}`), ...ipAddresses.map((address) => `IP:${address}`)];
  const extensions = [
    '[v3_leaf]',
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature',
    'extendedKeyUsage = serverAuth',
    `subjectAltName = ${altNames.join(', ')}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid, issuer',
    '',
  ].join('\n');
  return inScratch({ 'ca.key': ca.keyPem, 'ca.pem': ca.certPem, 'leaf.cnf': request, 'leaf.ext': extensions }, (file) => {
    openssl(['req', '-new', '-config', file('leaf.cnf'), ...NEW_EC_KEY, '-keyout', file('leaf.key'), '-out', file('leaf.csr')]);
    // 16 random bytes with the top bit clear: a positive serial of the most RFC 5280 allows.
    const serial = `0x${(randomBytes(1)[0] & 0x7f).toString(16).padStart(2, '0')}${randomBytes(15).toString('hex')}`;
    openssl([
      'x509',
      '-req',
      '-in',
      file('leaf.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-set_serial',
      serial,
      '-sha256',
      '-days',
      String(days),
      '-extfile',
      file('leaf.ext'),
      '-extensions',
      'v3_leaf',
      '-out',
      file('leaf.pem'),
    ]);
    return { keyPem: readFileSync(file('leaf.key'), 'utf8'), certPem: readFileSync(file('leaf.pem'), 'utf8') };
  });
}

module.exports = { createCertificateAuthority, issueServerCertificate };
