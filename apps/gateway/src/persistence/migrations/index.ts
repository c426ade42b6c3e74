import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122000100GatewayInit } from './migration-20261122-0001-init';

export const gatewayMigrations: MigrationObject[] = [{ name: 'Migration20261122000100GatewayInit', class: Migration20261122000100GatewayInit }];
