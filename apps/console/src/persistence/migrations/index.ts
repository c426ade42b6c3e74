import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261127000100ConsoleInit } from './migration-20261127-0001-init';
import { Migration20261127000200ConsoleSignIn } from './migration-20261127-0002-sign-in';
import { Migration20261127000300ConsoleInvitations } from './migration-20261127-0003-invitations';
import { Migration20261127000400ConsoleRetention } from './migration-20261127-0004-retention';
import { Migration20261127000500ConsoleBoundedInbox } from './migration-20261127-0005-bounded-inbox';
import { Migration20261130000600ConsoleInvitationsEnd } from './migration-20261130-0006-invitations-end';
import { Migration20261204000700ConsoleSignInQueue } from './migration-20261204-0007-sign-in-queue';
import { Migration20261204000800ConsoleEventTableOutbox } from './migration-20261204-0008-event-table-outbox';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const consoleMigrations: MigrationObject[] = [
  { name: 'Migration20261127000100ConsoleInit', class: Migration20261127000100ConsoleInit },
  { name: 'Migration20261127000200ConsoleSignIn', class: Migration20261127000200ConsoleSignIn },
  { name: 'Migration20261127000300ConsoleInvitations', class: Migration20261127000300ConsoleInvitations },
  { name: 'Migration20261127000400ConsoleRetention', class: Migration20261127000400ConsoleRetention },
  { name: 'Migration20261127000500ConsoleBoundedInbox', class: Migration20261127000500ConsoleBoundedInbox },
  { name: 'Migration20261130000600ConsoleInvitationsEnd', class: Migration20261130000600ConsoleInvitationsEnd },
  { name: 'Migration20261204000700ConsoleSignInQueue', class: Migration20261204000700ConsoleSignInQueue },
  { name: 'Migration20261204000800ConsoleEventTableOutbox', class: Migration20261204000800ConsoleEventTableOutbox },
];
