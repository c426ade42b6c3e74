import { Pruner } from '#platform/service-kit';
import { CURSOR_LIFETIME_MS } from './consent-cursor';

/**
 * Superseded listing versions matter only to cursors that may still be used; drop them once every
 * such cursor has expired (an hour of slack on top of the cursor lifetime), by the platform clock,
 * every ten minutes and whenever the test clock jumps.
 */
export class ConsentVersionsPruner extends Pruner({
  name: 'pruning consent versions',
  everyMs: 10 * 60 * 1000,
  tables: [{ table: 'consent.consent_versions', column: 'superseded_at', keepMs: CURSOR_LIFETIME_MS + 3600 * 1000 }],
}) {}
