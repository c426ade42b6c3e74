import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { KeyEnvironment, Scope } from '#platform/contracts';

/** Read model of API keys, keyed for lookup by the key's SHA-256 hash (the key itself is never stored). */
@Entity({ schema: 'gateway', tableName: 'api_keys' })
export class ApiKeyView {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text', index: true })
  appId!: string;

  @Property({ type: 'text' })
  environment!: KeyEnvironment;

  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: 'text', unique: true })
  keyHash!: string;

  @Property({ type: 'json' })
  scopes!: Scope[];

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  expiresAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;
}
