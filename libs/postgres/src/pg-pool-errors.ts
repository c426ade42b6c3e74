import type { Pool } from 'pg';

/**
 * Routes every `error` event of a pg Pool and of each of its clients to `onError`. The pool's own
 * listener covers idle clients only: a client checked out (between two queries of a transaction, or
 * while its holder awaits Kafka) that loses its server (57P01 on a restart or failover, a reset
 * socket) emits `error` with no listener, and Node ends the process. The client's next query then
 * fails; releasing it with that error makes the pool drop it and connect afresh on the next use.
 */
export function handlePoolErrors(pool: Pool, onError: (error: unknown) => void): Pool {
  pool.on('error', onError);
  pool.on('connect', (client) => client.on('error', onError));
  return pool;
}
