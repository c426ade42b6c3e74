import type { MikroORM } from '@mikro-orm/core';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';

/**
 * A service's MikroORM on Postgres, typed as such: its `em`, every fork of it and the `em` a
 * `transactional` callback gets are the SQL EntityManager (`execute`, `getKnex`), so no caller
 * needs to cast the core EntityManager into it.
 */
export type PostgresOrm = MikroORM<PostgreSqlDriver>;
