import { MikroORM, type Options } from '@mikro-orm/core';
import type { MigrationObject } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { PostgresOrm } from '#platform/postgres';
import { Client } from 'pg';
import { quoteIdent } from '#platform/event-store';

/**
 * Creates the service's role and schema if missing (architecture section 1: one role per service that can
 * touch only its own schema). Runs with the admin connection; safe to run from many replicas at once.
 */
export async function bootstrapServiceSchema(adminUrl: string, schema: string, password?: string): Promise<void> {
  const role = `svc_${schema}`;
  const client = new Client({ connectionString: adminUrl, application_name: `${schema}-bootstrap` });
  // A dropped connection fails the query under way (and the start); unheard, its `error` event would end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', ['platform-schema-bootstrap']);
    const exists = await client.query('select 1 from pg_roles where rolname = $1', [role]);
    if (exists.rowCount === 0) await client.query(`create role ${quoteIdent(role)} login`);
    if (password) await client.query(`alter role ${quoteIdent(role)} password ${literal(password)}`);
    await client.query(`create schema if not exists ${quoteIdent(schema)} authorization ${quoteIdent(role)}`);
    await client.query(`alter schema ${quoteIdent(schema)} owner to ${quoteIdent(role)}`);
    await client.query(`alter role ${quoteIdent(role)} set search_path = ${quoteIdent(schema)}`);
    const db = (await client.query('select current_database() as db')).rows[0].db as string;
    await client.query(`grant connect on database ${quoteIdent(db)} to ${quoteIdent(role)}`);
    // Nobody else gets in: no usage for PUBLIC on a service schema.
    await client.query(`revoke all on schema ${quoteIdent(schema)} from public`);
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', ['platform-schema-bootstrap']).catch(() => undefined);
    await client.end();
  }
}

function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

export interface OrmOptions {
  url: string;
  schema: string;
  entities: Options['entities'];
  migrations: MigrationObject[];
  poolMax?: number;
}

/** MikroORM for one service schema, with its migrations listed explicitly (no file globbing). */
export async function createOrm(options: OrmOptions): Promise<PostgresOrm> {
  return MikroORM.init(ormConfig(options));
}

export function ormConfig(options: OrmOptions): Options<PostgreSqlDriver> {
  return {
    driver: PostgreSqlDriver,
    clientUrl: options.url,
    schema: options.schema,
    entities: options.entities,
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    migrations: {
      migrationsList: options.migrations,
      tableName: 'mikro_orm_migrations',
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
    pool: { min: 1, max: options.poolMax ?? 10 },
    // MikroORM passes pg only host, port, user, password and database from the URL; pg reads the
    // whole URL itself (sslmode, sslrootcert, ...) when given it, as it does for our other clients.
    driverOptions: { connection: { connectionString: options.url } },
    allowGlobalContext: false,
    debug: false,
    ensureDatabase: false,
  };
}

export async function runMigrations(orm: PostgresOrm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
