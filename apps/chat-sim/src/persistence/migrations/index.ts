import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100ChatSimInit } from './migration-20261122-0001-init';
import { Migration20261122000200ChatSimInbox } from './migration-20261122-0002-inbox';
import { Migration20261127000300ChatSimBoundedInbox } from './migration-20261127-0003-bounded-inbox';
import { Migration20261127000400ChatSimMessageMentions } from './migration-20261127-0004-message-mentions';
import { Migration20261204000500ChatSimEventTableOutbox } from './migration-20261204-0005-event-table-outbox';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const chatSimMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100ChatSimInit', class: Migration20261122000100ChatSimInit },
  { name: 'Migration20261122000200ChatSimInbox', class: Migration20261122000200ChatSimInbox },
  { name: 'Migration20261127000300ChatSimBoundedInbox', class: Migration20261127000300ChatSimBoundedInbox },
  { name: 'Migration20261127000400ChatSimMessageMentions', class: Migration20261127000400ChatSimMessageMentions },
  { name: 'Migration20261204000500ChatSimEventTableOutbox', class: Migration20261204000500ChatSimEventTableOutbox },
];
