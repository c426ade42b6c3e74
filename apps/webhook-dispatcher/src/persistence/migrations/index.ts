import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100WebhookDispatcherInit } from './migration-20261122-0001-init';
import { Migration20261122000200WebhookTables } from './migration-20261122-0002-webhooks';
import { Migration20261122000300DeliveryTraceparent } from './migration-20261122-0003-delivery-trace';
import { Migration20261124000400ListenSessions } from './migration-20261124-0004-listen-sessions';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const webhookDispatcherMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100WebhookDispatcherInit', class: Migration20261122000100WebhookDispatcherInit },
  { name: 'Migration20261122000200WebhookTables', class: Migration20261122000200WebhookTables },
  { name: 'Migration20261122000300DeliveryTraceparent', class: Migration20261122000300DeliveryTraceparent },
  { name: 'Migration20261124000400ListenSessions', class: Migration20261124000400ListenSessions },
];
