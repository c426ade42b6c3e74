import { WEBHOOKS } from '#platform/contracts';
import { runStatement } from '#platform/postgres';
import { Pruner } from '#platform/service-kit';
import { dropAttemptExchangesStatement, dropPayloadsStatement } from './deliveries.sql';
import { pruneDeliveryRecords } from './delivery-retention.sql';

/**
 * Every hour and whenever the test clock jumps: drops public events' payloads and attempts'
 * request headers and response excerpts (ADR 0220) past WEBHOOKS.payloadRetentionMs, then the finished deliveries, their attempts and the events no
 * pending delivery needs past WEBHOOKS.recordRetentionMs (ADR 0189), counting the rows deleted.
 */
export class DeliveryRetentionPruner extends Pruner({
  name: 'webhook payload retention',
  everyMs: 3600 * 1000,
  prune: async (runtime, count) => {
    const now = runtime.clock.now().getTime();
    await runStatement(runtime.em(), dropPayloadsStatement(new Date(now - WEBHOOKS.payloadRetentionMs)));
    await runStatement(runtime.em(), dropAttemptExchangesStatement(new Date(now - WEBHOOKS.payloadRetentionMs)));
    const pruned = await pruneDeliveryRecords(runtime.em(), new Date(now - WEBHOOKS.recordRetentionMs));
    for (const [table, rows] of Object.entries(pruned)) count(table, rows);
  },
}) {}
