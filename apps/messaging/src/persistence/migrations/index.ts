import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100MessagingInit } from './migration-20261122-0001-init';
import { Migration20261122000200MessagingTables } from './migration-20261122-0002-messages';
import { Migration20261122000300MessageDeadline } from './migration-20261122-0003-message-deadline';
import { Migration20261122000400MessagingMedia } from './migration-20261122-0004-media';
import { Migration20261122000500SendRequestExpiry } from './migration-20261122-0005-send-request-expiry';
import { Migration20261127000600MessagingBoundedInbox } from './migration-20261127-0006-bounded-inbox';
import { Migration20261127000700DailyCountQuota } from './migration-20261127-0007-daily-count-quota';
import { Migration20261204000800MessagingEventTableOutbox } from './migration-20261204-0008-event-table-outbox';
import { Migration20261205000900MessageDailyCounts } from './migration-20261205-0009-message-daily-counts';
import { Migration20261205001000MessagingTemplates } from './migration-20261205-0010-templates';
import { Migration20261205001100IdempotencyOnMessages } from './migration-20261205-0011-idempotency-on-messages';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const messagingMigrations: MigrationObject[] = [
  { name: 'Migration20261122000100MessagingInit', class: Migration20261122000100MessagingInit },
  { name: 'Migration20261122000200MessagingTables', class: Migration20261122000200MessagingTables },
  { name: 'Migration20261122000300MessageDeadline', class: Migration20261122000300MessageDeadline },
  { name: 'Migration20261122000400MessagingMedia', class: Migration20261122000400MessagingMedia },
  { name: 'Migration20261122000500SendRequestExpiry', class: Migration20261122000500SendRequestExpiry },
  { name: 'Migration20261127000600MessagingBoundedInbox', class: Migration20261127000600MessagingBoundedInbox },
  { name: 'Migration20261127000700DailyCountQuota', class: Migration20261127000700DailyCountQuota },
  { name: 'Migration20261204000800MessagingEventTableOutbox', class: Migration20261204000800MessagingEventTableOutbox },
  { name: 'Migration20261205000900MessageDailyCounts', class: Migration20261205000900MessageDailyCounts },
  { name: 'Migration20261205001000MessagingTemplates', class: Migration20261205001000MessagingTemplates },
  { name: 'Migration20261205001100IdempotencyOnMessages', class: Migration20261205001100IdempotencyOnMessages },
];
