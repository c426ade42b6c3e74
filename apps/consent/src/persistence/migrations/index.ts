import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100ConsentInit } from './migration-20261122-0001-init';
import { Migration20261122000200ConsentTables } from './migration-20261122-0002-consents';
import { Migration20261122000300ConsentCausationIndex } from './migration-20261122-0003-causation-index';
import { Migration20261127000400ConsentBoundedInbox } from './migration-20261127-0004-bounded-inbox';
import { Migration20261204000500ConsentEventTableOutbox } from './migration-20261204-0005-event-table-outbox';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const consentMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100ConsentInit', class: Migration20261122000100ConsentInit },
  { name: 'Migration20261122000200ConsentTables', class: Migration20261122000200ConsentTables },
  { name: 'Migration20261122000300ConsentCausationIndex', class: Migration20261122000300ConsentCausationIndex },
  { name: 'Migration20261127000400ConsentBoundedInbox', class: Migration20261127000400ConsentBoundedInbox },
  { name: 'Migration20261204000500ConsentEventTableOutbox', class: Migration20261204000500ConsentEventTableOutbox },
];
