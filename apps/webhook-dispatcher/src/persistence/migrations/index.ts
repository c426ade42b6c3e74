import type { MigrationObject } from '@mikro-orm/core';
import type { SecretKeyRing } from '#platform/service-kit';
import { Migration20261122000100WebhookDispatcherInit } from './migration-20261122-0001-init';
import { Migration20261122000200WebhookTables } from './migration-20261122-0002-webhooks';
import { Migration20261122000300DeliveryTraceparent } from './migration-20261122-0003-delivery-trace';
import { Migration20261124000400ListenSessions } from './migration-20261124-0004-listen-sessions';
import { sealCredentialsMigration } from './migration-20261126-0005-seal-credentials';
import { Migration20261127000600WebhookDispatcherBoundedInbox } from './migration-20261127-0006-bounded-inbox';
import { Migration20261127000700DeliveryRetention } from './migration-20261127-0007-delivery-retention';
import { Migration20261127000800PublicEventSources } from './migration-20261127-0008-public-event-sources';
import { Migration20261129000900EndpointLanes } from './migration-20261129-0009-endpoint-lanes';
import { Migration20261204001000WebhookDispatcherEventTableOutbox } from './migration-20261204-0010-event-table-outbox';
import { Migration20261205001100AttemptExchange } from './migration-20261205-0011-attempt-exchange';
import { Migration20261205001200DeliveryHourlyCounts } from './migration-20261205-0012-delivery-hourly-counts';
import { Migration20261205001300KeptEventsAndRecoveries } from './migration-20261205-0013-kept-events-and-recoveries';

/** Applied in order at startup (and by the migrations Job in Kubernetes); sealing existing credentials needs the key ring. */
export function webhookDispatcherMigrations(secretKeys: SecretKeyRing): MigrationObject[] {
  return [
    { name: 'Migration20261122000100WebhookDispatcherInit', class: Migration20261122000100WebhookDispatcherInit },
    { name: 'Migration20261122000200WebhookTables', class: Migration20261122000200WebhookTables },
    { name: 'Migration20261122000300DeliveryTraceparent', class: Migration20261122000300DeliveryTraceparent },
    { name: 'Migration20261124000400ListenSessions', class: Migration20261124000400ListenSessions },
    { name: 'Migration20261126000500SealCredentials', class: sealCredentialsMigration(secretKeys) },
    { name: 'Migration20261127000600WebhookDispatcherBoundedInbox', class: Migration20261127000600WebhookDispatcherBoundedInbox },
    { name: 'Migration20261127000700DeliveryRetention', class: Migration20261127000700DeliveryRetention },
    { name: 'Migration20261127000800PublicEventSources', class: Migration20261127000800PublicEventSources },
    { name: 'Migration20261129000900EndpointLanes', class: Migration20261129000900EndpointLanes },
    { name: 'Migration20261204001000WebhookDispatcherEventTableOutbox', class: Migration20261204001000WebhookDispatcherEventTableOutbox },
    { name: 'Migration20261205001100AttemptExchange', class: Migration20261205001100AttemptExchange },
    { name: 'Migration20261205001200DeliveryHourlyCounts', class: Migration20261205001200DeliveryHourlyCounts },
    { name: 'Migration20261205001300KeptEventsAndRecoveries', class: Migration20261205001300KeptEventsAndRecoveries },
  ];
}
