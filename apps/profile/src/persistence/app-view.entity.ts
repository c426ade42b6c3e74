import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { AppStatus, VerificationStatus } from '#platform/contracts';

/** Read model of an app and its business profile, updated inline with every App event. */
@Entity({ schema: 'profile', tableName: 'apps' })
export class AppView {
  @PrimaryKey({ type: 'text' })
  appId!: string;

  @Property({ type: 'text' })
  orgId!: string;

  @Property({ type: 'text', unique: true })
  handle!: string;

  @Property({ type: 'text' })
  status!: AppStatus;

  @Property({ type: 'text' })
  verificationStatus!: VerificationStatus;

  @Property({ type: 'timestamptz', nullable: true })
  verifiedAt: Date | null = null;

  @Property({ type: 'integer' })
  dailyQuota!: number;

  @Property({ type: 'text' })
  displayName!: string;

  @Property({ type: 'text', nullable: true })
  about: string | null = null;

  @Property({ type: 'text', nullable: true })
  websiteUrl: string | null = null;

  @Property({ type: 'text', nullable: true })
  category: string | null = null;

  @Property({ type: 'text', nullable: true })
  avatarMediaId: string | null = null;

  @Property({ type: 'text', nullable: true })
  avatarObjectKey: string | null = null;

  @Property({ type: 'text', nullable: true })
  creatorEmail: string | null = null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  /** Stream version of the last event applied. */
  @Property({ type: 'integer' })
  version!: number;
}
