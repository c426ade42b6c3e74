import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100ProfileInit } from './migration-20261122-0001-init';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const profileMigrations: MigrationObject[] = [{ name: 'Migration20261122000100ProfileInit', class: Migration20261122000100ProfileInit }];
