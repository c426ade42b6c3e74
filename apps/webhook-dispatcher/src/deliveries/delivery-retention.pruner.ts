import { WEBHOOKS } from '#platform/contracts';
import { runStatement } from '#platform/postgres';
import { Pruner } from '#platform/service-kit';
import { dropAttemptExchangesStatement } from './deliveries.sql';
import { pruneDeliveryRecords } from './delivery-retention.sql';

/**
 * Every hour and whenever the test clock jumps: drops attempts' request headers and response
 * excerpts (ADR 0220) past WEBHOOKS.payloadRetentionMs, then the finished deliveries and their
 * attempts past WEBHOOKS.recordRetentionMs (ADR 0189) and the public events, payload and all, that no
 * pending delivery needs past WEBHOOKS.eventRetentionMs (ADR 0223), counting the rows deleted.
 */
export class DeliveryRetentionPruner extends Pruner({
  name: 'webhook payload retention',
  everyMs: 3600 * 1000,
  prune: async (runtime, count) => {
    const now = runtime.clock.now().getTime();
    await runStatement(runtime.em(), dropAttemptExchangesStatement(new Date(now - WEBHOOKS.payloadRetentionMs)));
    const pruned = await pruneDeliveryRecords(runtime.em(), {
      deliveriesBefore: new Date(now - WEBHOOKS.recordRetentionMs),
      eventsBefore: new Date(now - WEBHOOKS.eventRetentionMs),
    });
    for (const [table, rows] of Object.entries(pruned)) count(table, rows);
  },
}) {}
