import pg from 'pg';

/** The test stack: its own database, its own ports, the test clock on. */
export const TEST_BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000);
export const TEST_DATABASE = process.env.TEST_DATABASE ?? 'platform_test';
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
  // Its own topics and groups, so a dev stack or a benchmark on the same broker never interferes;
  // global setup makes it fresh per run (`<database>_<time>.`) unless KAFKA_NAMESPACE is given.
  KAFKA_NAMESPACE: process.env.KAFKA_NAMESPACE ?? `${TEST_DATABASE}.`,
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
