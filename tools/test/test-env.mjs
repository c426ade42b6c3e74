import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The test stack: its own database, its own ports, the test clock on. */
export const TEST_BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);
export const TEST_DATABASE = process.env.TEST_DATABASE ?? 'platform_test';
/**
 * Webhook receivers of the tests: names pinned (WEBHOOK_DEV_HOSTS) to local ports as if they resolved
 * publicly and listened on 443, certificates from a local CA (WEBHOOK_CA_FILE), and every other name
 * resolved by the test's own DNS server (WEBHOOK_DNS_SERVERS), so SSRF tests choose the answers.
 */
export const WEBHOOK_TEST_HOSTS = ['hooks.local.test', 'hooks2.local.test', 'hooks3.local.test', 'hooks4.local.test', 'hooks5.local.test'];
export const webhookReceiverPort = (index) => TEST_BASE_PORT + 71 + index;
export const WEBHOOK_DNS_PORT = TEST_BASE_PORT + 80;
export const TEST_CERTS_DIR = path.join(ROOT, '.data/test-certs');
/** The test stack's app logs, one folder per stack (by its ports), so that shards running at once never share a file. */
export const TEST_LOG_DIR = path.join(ROOT, '.data/logs', `test-${TEST_BASE_PORT}`);
export const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_ENV = {
  NODE_ENV: 'test',
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${TEST_DATABASE}`,
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  CLOCK_MODE: 'test',
  ADMIN_TOKEN: 'test-admin-token',
  DOCS_URL: 'https://docs.example.com/platform',
  APP_USER_ID_SECRET: 'test-app-user-id-secret',
  RPC_TIMEOUT_MS: '8000',
  // Short enough that the stalling-client tests finish fast, long enough for a loaded machine.
  HTTP_HEADERS_TIMEOUT_MS: '4000',
  HTTP_REQUEST_TIMEOUT_MS: '8000',
  HTTP_BODY_TIMEOUT_MS: '3000',
  // Debug lines (an RPC handled, an event applied) let e2e tests follow one request across services.
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'debug',
  WEBHOOK_DEV_HOSTS: WEBHOOK_TEST_HOSTS.map((host, i) => `${host}=127.0.0.1:${webhookReceiverPort(i)}`).join(','),
  // WEBHOOK_CA_FILE: set by global setup once the local CA exists (its file is named by fingerprint).
  WEBHOOK_DNS_SERVERS: `127.0.0.1:${WEBHOOK_DNS_PORT}`,
  // Its own topics and groups, so a dev stack or a benchmark on the same broker never interferes;
  // global setup makes it fresh per run (`<database>_<time>.`) unless KAFKA_NAMESPACE is given.
  KAFKA_NAMESPACE: process.env.KAFKA_NAMESPACE ?? `${TEST_DATABASE}.`,
  // Tests connect from 127.0.0.1 and act as clients of other addresses through X-Forwarded-For.
  TRUSTED_PROXIES: '127.0.0.1',
  // Where the test stack's console listens (stack port offset 2): the links in its emails point there.
  CONSOLE_URL: `http://127.0.0.1:${TEST_BASE_PORT + 2}`,
  // The local SMTP sink of tools/infra, and its list for GET /admin/v1/mail.
  SMTP_URL: `smtp://127.0.0.1:${process.env.MAIL_SMTP_PORT ?? 1025}`,
  MAIL_SINK_URL: `http://127.0.0.1:${process.env.MAIL_HTTP_PORT ?? 1080}`,
};

/** Every run starts from an empty database; roles are cluster-wide and reused. */
export async function resetDatabase() {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`drop database if exists ${TEST_DATABASE} with (force)`);
    await client.query(`create database ${TEST_DATABASE}`);
  } finally {
    await client.end();
  }
}
