import { Configuration } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { ormConfig } from './database';

/** The pg client the ORM would make for a DATABASE_URL (created, never connected). */
function pgClientFor(url: string): Client {
  const config = new Configuration(ormConfig({ url, schema: 'profile', entities: [], migrations: [] }), false);
  const connection = (config.getDriver() as PostgreSqlDriver).getConnection() as unknown as { getKnexOptions(type: string): { connection: object } };
  return new Client(connection.getKnexOptions('pg').connection);
}

// MikroORM splits the URL into host, port, user, password and database: its query (sslmode) was lost.
describe('ORM connection and sslmode in DATABASE_URL', () => {
  it.each(['require', 'verify-ca', 'verify-full'])('keeps TLS on with sslmode=%s, certificates checked', (mode) => {
    const client = pgClientFor(`postgres://svc_profile:pw@db.internal:5432/platform?sslmode=${mode}`);
    expect(client.ssl).toBeTruthy();
    expect((client.ssl as unknown as { rejectUnauthorized?: boolean }).rejectUnauthorized).not.toBe(false);
  });

  it('connects in the clear without sslmode or with sslmode=disable, as the local Postgres wants', () => {
    expect(pgClientFor('postgres://postgres@127.0.0.1:5432/platform').ssl).toBeFalsy();
    expect(pgClientFor('postgres://postgres@127.0.0.1:5432/platform?sslmode=disable').ssl).toBeFalsy();
  });

  it('still connects where the URL says, as whom it says', () => {
    const client = pgClientFor('postgres://svc_profile:p%40ss@db.internal:6432/platform?sslmode=require');
    expect([client.host, client.port, client.user, client.password, client.database]).toEqual(['db.internal', 6432, 'svc_profile', 'p@ss', 'platform']);
  });
});
