/**
 * Shared plumbing of the event-store integration tests (real Postgres and Kafka, no mocks):
 * throwaway service schemas with their own role, unique topics, a Kafka collector and a polling
 * `waitFor` (tests wait on conditions, never on fixed sleeps).
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Migration } from '@mikro-orm/migrations';
import type { Kafka, Producer } from 'kafkajs';
import { Client } from 'pg';
import { createKafka, ensureTopics, KeyHashPartitioner, parseBrokers } from '#platform/kafka';
import { bootstrapServiceSchema, createOrm, runMigrations, serviceUrlFor } from '#platform/service-kit';
import { eventSourcingTablesSql, eventTableOutboxSql, quoteIdent } from '#platform/event-store';
import type { PostgresOrm } from '#platform/postgres';

/** Admin connection to the test database (same defaults and variables as tools/test/test-env.mjs). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/${process.env.TEST_DATABASE ?? 'platform_test'}`;
export const BROKERS = parseBrokers(process.env.KAFKA_BROKERS);

/** Lower-case, identifier-safe and unique per call: `<prefix>_<time>_<random>`. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Extra state for the timeout message (e.g. "12 of 20 rows"). */
  detail?: () => unknown;
}

/**
 * Polls `probe` until it returns something other than undefined/null/false and returns that value.
 * On timeout it fails with what it waited for, the last probe error and `detail()`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 15000;
  const intervalMs = options.intervalMs ?? 25;
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() - started > timeoutMs) {
      let detail = '';
      if (options.detail) {
        try {
          detail = `; state: ${JSON.stringify(await options.detail())}`;
        } catch (error) {
          detail = `; state unavailable: ${String(error)}`;
        }
      }
      const cause = lastError ? `; last error: ${String((lastError as Error)?.message ?? lastError)}` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}${detail}`);
    }
    await sleep(intervalMs);
  }
}

/** Runs `sql` on a short-lived admin connection. */
export async function adminQuery<R extends Record<string, unknown> = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new Client({ connectionString: ADMIN_URL, application_name: 'es-int-test-admin' });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as R[];
  } finally {
    await client.end();
  }
}

/** Creates the test database when it is missing (the admin URL names it). */
export async function ensureTestDatabase(): Promise<void> {
  const url = new URL(ADMIN_URL);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`create database ${quoteIdent(database)}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  schema: string;
  role: string;
  /** Connection string of the service role `svc_<schema>` (no admin rights). */
  url: string;
  orm: PostgresOrm;
  /** A fresh EntityManager (global context is disabled). */
  em: () => EntityManager;
  /** Runs one query as the service role on the ORM's pool. */
  query: <R = Record<string, any>>(sql: string, params?: unknown[]) => Promise<R[]>;
}

/**
 * A throwaway service schema, created exactly like a service does it: `bootstrapServiceSchema` (role
 * `svc_<schema>` owning the schema), then MikroORM connected as that role runs one migration with the
 * event-sourcing tables plus `extraSql` (given the quoted schema name).
 */
export async function createTestSchema(
  options: {
    prefix?: string;
    extraSql?: (s: string) => string[];
    poolMax?: number;
    /** false: the tables as they were before the event table became the outbox. */ eventTableOutbox?: boolean;
  } = {},
): Promise<TestSchema> {
  await ensureTestDatabase();
  const schema = uniqueName(options.prefix ?? 'es_test');
  const role = `svc_${schema}`;
  await bootstrapServiceSchema(ADMIN_URL, schema);
  const extra = options.extraSql?.(quoteIdent(schema)) ?? [];
  class Migration00000000000001EsTestInit extends Migration {
    override async up(): Promise<void> {
      for (const sql of eventSourcingTablesSql(schema)) this.addSql(sql);
      if (options.eventTableOutbox !== false) for (const sql of eventTableOutboxSql(schema)) this.addSql(sql);
      for (const sql of extra) this.addSql(sql);
    }
  }
  const url = serviceUrlFor(ADMIN_URL, role);
  const orm = await createOrm({
    url,
    schema,
    entities: [],
    migrations: [{ name: 'Migration00000000000001EsTestInit', class: Migration00000000000001EsTestInit }],
    poolMax: options.poolMax ?? 5,
  });
  // The migrator logs "Processing/Applied" unconditionally; keep test output readable.
  (orm.config.getLogger() as unknown as { writer: (message: string) => void }).writer = () => undefined;
  await runMigrations(orm);
  const em = (): EntityManager => orm.em.fork();
  return {
    schema,
    role,
    url,
    orm,
    em,
    query: async <R = Record<string, any>>(sql: string, params: unknown[] = []) => (await em().execute(sql, params)) as R[],
  };
}

/** Closes the ORM, ends the role's sessions, drops the schema and the role. Never throws. */
export async function dropTestSchema(test: TestSchema | undefined): Promise<void> {
  if (!test) return;
  await test.orm.close(true).catch(() => undefined);
  await dropSchemaAndRole(test.schema);
}

export async function dropSchemaAndRole(schema: string): Promise<void> {
  const role = `svc_${schema}`;
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery('select pg_terminate_backend(pid) from pg_stat_activity where usename = $1 and pid <> pg_backend_pid()', [role]);
      await adminQuery(`drop schema if exists ${quoteIdent(schema)} cascade`);
      const exists = await adminQuery('select 1 from pg_roles where rolname = $1', [role]);
      if (exists.length > 0) {
        // Also revokes the database CONNECT grant, so the role can go.
        await adminQuery(`drop owned by ${quoteIdent(role)} cascade`);
        await adminQuery(`drop role ${quoteIdent(role)}`);
      }
      return;
    } catch (error) {
      // Test files cleaning up in parallel revoke their roles' CONNECT grants on the same database
      // row, and Postgres refuses the second of two concurrent updates of it: try again.
      if (attempt < 5 && /tuple concurrently updated/.test(String(error))) continue;
      process.stderr.write(`cleanup of ${schema} failed: ${String(error)}\n`);
      return;
    }
  }
}

export function testKafka(clientId = uniqueName('es-int')): Kafka {
  return createKafka(clientId, BROKERS);
}

/** Same producer settings as ServiceRuntime (idempotent, one request in flight). */
export async function connectProducer(kafka: Kafka): Promise<Producer> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: KeyHashPartitioner, allowAutoTopicCreation: false });
  await producer.connect();
  return producer;
}

/** Creates a fresh topic (auto creation is off on the broker). */
export async function createTopic(kafka: Kafka, prefix: string, partitions: number): Promise<string> {
  const name = uniqueName(prefix).replace(/_/g, '-');
  await ensureTopics(kafka, [{ name, partitions, config: {} }]);
  return name;
}

export async function deleteTopics(kafka: Kafka, topics: string[]): Promise<void> {
  if (topics.length === 0) return;
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteTopics({ topics, timeout: 5000 });
  } catch {
    // Best effort: names are unique per run, a leftover topic harms nobody.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: number;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface Collector {
  messages: ConsumedMessage[];
  stop: () => Promise<void>;
}

/** Reads topics from the beginning in a brand-new consumer group and keeps every message. */
export async function collectTopics(kafka: Kafka, topics: string[]): Promise<Collector> {
  const consumer = kafka.consumer({ groupId: uniqueName('es-int-collector'), maxWaitTimeInMs: 100, allowAutoTopicCreation: false });
  const messages: ConsumedMessage[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics, fromBeginning: true });
  await consumer.run({
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(m.headers ?? {})) headers[name] = value === undefined ? '' : String(Array.isArray(value) ? value[0] : value);
        messages.push({
          topic: batch.topic,
          partition: batch.partition,
          offset: Number(m.offset),
          key: m.key?.toString('utf8') ?? null,
          value: m.value?.toString('utf8') ?? null,
          headers,
        });
      }
    },
  });
  return { messages, stop: () => consumer.disconnect().catch(() => undefined) };
}

/** Messages grouped by Kafka key, each group in (partition, offset) order. */
export function byKey(messages: ConsumedMessage[]): Map<string, ConsumedMessage[]> {
  const sorted = [...messages].sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  const groups = new Map<string, ConsumedMessage[]>();
  for (const m of sorted) {
    const list = groups.get(m.key ?? '') ?? [];
    list.push(m);
    groups.set(m.key ?? '', list);
  }
  return groups;
}

/** Events of the schema the relay has still to publish (past their shard's cursor), optionally filtered (`e.` columns). */
export async function countUnpublished(test: TestSchema, where = 'true', params: unknown[] = []): Promise<number> {
  const s = quoteIdent(test.schema);
  const [row] = await test.query<{ n: number }>(
    `select count(*)::int as n from ${s}.events e cross join ${s}.relay_cursor c
      where e.shard is not null and (e.tx_id, e.position) > (c.tx_ids[e.shard + 1], c.positions[e.shard + 1]) and ${where}`,
    params,
  );
  return Number(row.n);
}

export async function countRows(test: TestSchema, table: string, where = 'true', params: unknown[] = []): Promise<number> {
  const [row] = await test.query<{ n: number }>(`select count(*)::int as n from ${quoteIdent(test.schema)}.${quoteIdent(table)} where ${where}`, params);
  return Number(row.n);
}
