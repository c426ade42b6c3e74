/**
 * The broker's SASL_SSL listener (KAFKA_SECURE_PORT, off unless set): what production's Strimzi
 * listener speaks (TLS, SCRAM-SHA-512), on a dev or test broker, so the clients' security settings
 * (libs/kafka kafkaSecurityFromEnv) are tried against a real broker. Its CA, the broker's certificate
 * (made by the tests' certificate authority, libs/testing/src/certificate-authority.js) and the SCRAM
 * user's password live under the broker's home (`tls/`): made once, kept across starts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import certificateAuthority from '../../libs/testing/src/certificate-authority.js';

const { createCertificateAuthority, issueServerCertificate } = certificateAuthority;

/** The one SCRAM-SHA-512 user of a dev broker; its password is in `tls/scram-password`. */
export const SCRAM_USER = 'platform';

/** Where a broker home keeps its secure listener's files. */
export function secureListenerFiles(home) {
  const dir = path.join(home, 'tls');
  return {
    dir,
    /** The CA a client trusts (KAFKA_SSL_CA_FILE). */
    caFile: path.join(dir, 'ca.pem'),
    /** The broker's key and certificate chain, one PEM file (Kafka's PEM keystore). */
    keystoreFile: path.join(dir, 'broker.pem'),
    passwordFile: path.join(dir, 'scram-password'),
    /** Written once the SCRAM user exists in the cluster's metadata. */
    userAddedFile: path.join(dir, 'scram-user-added'),
  };
}

/** Makes the CA, the broker's certificate (for `host` and localhost) and the password, when missing. */
export function ensureSecureListenerFiles(home, host) {
  const files = secureListenerFiles(home);
  fs.mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(files.keystoreFile) || !fs.existsSync(files.caFile)) writeCertificates(files, host);
  if (!fs.existsSync(files.passwordFile)) {
    // Letters and digits only: the password is written inside StorageTool's and ConfigCommand's `[name=…,password=…]`.
    fs.writeFileSync(files.passwordFile, `${crypto.randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
    fs.rmSync(files.userAddedFile, { force: true });
  }
  return files;
}

export function scramPassword(files) {
  return fs.readFileSync(files.passwordFile, 'utf8').trim();
}

/** The SCRAM credential as StorageTool's `--add-scram` and ConfigCommand's `--add-config` take it. */
export function scramCredential(files, withName) {
  return `SCRAM-SHA-512=[${withName ? `name=${SCRAM_USER},` : ''}password=${scramPassword(files)}]`;
}

/** server.properties lines for the listener named SASL_SSL (the listeners lines themselves are the caller's). */
export function secureListenerProperties(files) {
  return [
    'sasl.enabled.mechanisms=SCRAM-SHA-512',
    'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_ssl.ssl.keystore.type=PEM',
    `listener.name.sasl_ssl.ssl.keystore.location=${files.keystoreFile}`,
    'listener.name.sasl_ssl.ssl.client.auth=none',
  ];
}

function writeCertificates(files, host) {
  const isAddress = /^[\d.]+$|:/.test(host);
  const ca = createCertificateAuthority({ commonName: 'platform dev Kafka CA', days: 3650 });
  const broker = issueServerCertificate(ca, {
    commonName: 'localhost',
    dnsNames: [...new Set(['localhost', ...(isAddress ? [] : [host])])],
    ipAddresses: [...new Set(['127.0.0.1', ...(isAddress ? [host] : [])])],
    days: 825,
  });
  // Key (PKCS#8, unencrypted: Kafka reads it without ssl.key.password), then the chain up to the CA.
  fs.writeFileSync(files.keystoreFile, `${broker.keyPem}${broker.certPem}${ca.certPem}`, { mode: 0o600 });
  fs.writeFileSync(files.caFile, ca.certPem);
}
