import { IDEMPOTENCY_KEY_TTL_MS } from '#platform/contracts';
import { Pruner } from '#platform/service-kit';

/**
 * Deletes claims of Idempotency-Keys older than their 24 hours (`send_requests`), every ten
 * minutes and whenever the test clock jumps. An expired claim already counts for nothing (a new
 * request with its key takes it over); without this the table would keep every send forever.
 */
export class SendRequestPruner extends Pruner({
  name: 'pruning expired Idempotency-Key claims',
  everyMs: 10 * 60 * 1000,
  tables: [{ table: 'messaging.send_requests', column: 'created_at', keepMs: IDEMPOTENCY_KEY_TTL_MS }],
}) {}
