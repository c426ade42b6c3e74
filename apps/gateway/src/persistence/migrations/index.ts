import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100GatewayInit } from './migration-20261122-0001-init';
import { Migration20261122000200GatewayIdempotency } from './migration-20261122-0002-idempotency';
import { Migration20261122000300GatewayIdempotencyFillfactor } from './migration-20261122-0003-idempotency-fillfactor';
import { Migration20261123000400GatewayDropIdempotencyRecords } from './migration-20261123-0004-drop-idempotency-records';
import { Migration20261124000500GatewayRateBuckets } from './migration-20261124-0005-rate-buckets';
import { Migration20261127000600GatewayBoundedInbox } from './migration-20261127-0006-bounded-inbox';
import { Migration20261204000700GatewayEventTableOutbox } from './migration-20261204-0007-event-table-outbox';
import { Migration20261205000800GatewayRequestLog } from './migration-20261205-0008-request-log';
import { Migration20261205000900GatewayRequestLogBatches } from './migration-20261205-0009-request-log-batches';

export const gatewayMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100GatewayInit', class: Migration20261122000100GatewayInit },
  { name: 'Migration20261122000200GatewayIdempotency', class: Migration20261122000200GatewayIdempotency },
  { name: 'Migration20261122000300GatewayIdempotencyFillfactor', class: Migration20261122000300GatewayIdempotencyFillfactor },
  { name: 'Migration20261123000400GatewayDropIdempotencyRecords', class: Migration20261123000400GatewayDropIdempotencyRecords },
  { name: 'Migration20261124000500GatewayRateBuckets', class: Migration20261124000500GatewayRateBuckets },
  { name: 'Migration20261127000600GatewayBoundedInbox', class: Migration20261127000600GatewayBoundedInbox },
  { name: 'Migration20261204000700GatewayEventTableOutbox', class: Migration20261204000700GatewayEventTableOutbox },
  { name: 'Migration20261205000800GatewayRequestLog', class: Migration20261205000800GatewayRequestLog },
  { name: 'Migration20261205000900GatewayRequestLogBatches', class: Migration20261205000900GatewayRequestLogBatches },
];
