import { runStatement } from '#platform/postgres';
import { Pruner } from '#platform/service-kit';
import { sweepStatements } from './listen-sessions.sql';

/**
 * Every ten minutes and whenever the test clock jumps: expired listen sessions go, and records
 * older than a session's life (nobody can still be owed them).
 */
export class ListenSessionPruner extends Pruner({
  name: 'listen session expiry',
  everyMs: 600_000,
  prune: async (runtime) => {
    const now = runtime.clock.now();
    for (const statement of sweepStatements(now)) await runStatement(runtime.em(), statement);
  },
}) {}
