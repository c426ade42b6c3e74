import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100MediaInit } from './migration-20261122-0001-init';
import { Migration20261122000200MediaTables } from './migration-20261122-0002-media';
import { Migration20261127000300MediaBoundedInbox } from './migration-20261127-0003-bounded-inbox';
import { Migration20261127000400MediaMessageMentions } from './migration-20261127-0004-message-mentions';
import { Migration20261204000500MediaUploadLeftovers } from './migration-20261204-0005-upload-leftovers';
import { Migration20261204000600MediaEventTableOutbox } from './migration-20261204-0006-event-table-outbox';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const mediaMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100MediaInit', class: Migration20261122000100MediaInit },
  { name: 'Migration20261122000200MediaTables', class: Migration20261122000200MediaTables },
  { name: 'Migration20261127000300MediaBoundedInbox', class: Migration20261127000300MediaBoundedInbox },
  { name: 'Migration20261127000400MediaMessageMentions', class: Migration20261127000400MediaMessageMentions },
  { name: 'Migration20261204000500MediaUploadLeftovers', class: Migration20261204000500MediaUploadLeftovers },
  { name: 'Migration20261204000600MediaEventTableOutbox', class: Migration20261204000600MediaEventTableOutbox },
];
