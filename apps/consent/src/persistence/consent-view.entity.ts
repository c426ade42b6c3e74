import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { ConsentReason, ConsentSource, ConsentStatus } from '#platform/contracts';

/** The current consent of one user to one app (GET /users); inline projection of the consent stream. */
@Entity({ schema: 'consent', tableName: 'consents' })
export class ConsentView {
  @PrimaryKey({ type: 'text' })
  appId!: string;

  @PrimaryKey({ type: 'text' })
  appUserId!: string;

  @Property({ type: 'text' })
  userId!: string;

  @Property({ type: 'text' })
  status!: ConsentStatus;

  @Property({ type: 'text' })
  source!: ConsentSource;

  @Property({ type: 'text', nullable: true })
  ref: string | null = null;

  @Property({ type: 'text', nullable: true })
  reason: ConsentReason | null = null;

  @Property({ type: 'timestamptz' })
  optedInAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  optedOutAt: Date | null = null;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  /** Stream version of the last event applied. */
  @Property({ type: 'integer' })
  version!: number;
}
