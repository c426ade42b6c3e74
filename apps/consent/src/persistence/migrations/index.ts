import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100ConsentInit } from './migration-20261122-0001-init';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const consentMigrations: MigrationObject[] = [{ name: 'Migration20261122000100ConsentInit', class: Migration20261122000100ConsentInit }];
