import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261127000100ConsoleInit } from './migration-20261127-0001-init';

/** Applied in order at startup (and by the migrations Job in Kubernetes). */
export const consoleMigrations: MigrationObject[] = [{ name: 'Migration20261127000100ConsoleInit', class: Migration20261127000100ConsoleInit }];
