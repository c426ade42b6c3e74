import { Pruner } from '#platform/service-kit';
import { REQUEST_LOG_RETENTION_MS } from './request-log.sql';

/** Deletes requests older than 7 days every ten minutes and whenever the test clock jumps (architecture section 12). */
export class RequestLogPruner extends Pruner({
  name: 'request log retention',
  everyMs: 10 * 60 * 1000,
  tables: [{ table: 'gateway.request_log_batches', column: 'last_at', keepMs: REQUEST_LOG_RETENTION_MS }],
}) {}
