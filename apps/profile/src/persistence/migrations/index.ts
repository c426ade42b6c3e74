import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100ProfileInit } from './migration-20261122-0001-init';
import { Migration20261122000200ProfileAvatar } from './migration-20261122-0002-avatar';
import { Migration20261127000300ProfileBoundedInbox } from './migration-20261127-0003-bounded-inbox';
import { Migration20261204000400ProfileEventTableOutbox } from './migration-20261204-0004-event-table-outbox';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const profileMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100ProfileInit', class: Migration20261122000100ProfileInit },
  { name: 'Migration20261122000200ProfileAvatar', class: Migration20261122000200ProfileAvatar },
  { name: 'Migration20261127000300ProfileBoundedInbox', class: Migration20261127000300ProfileBoundedInbox },
  { name: 'Migration20261204000400ProfileEventTableOutbox', class: Migration20261204000400ProfileEventTableOutbox },
];
