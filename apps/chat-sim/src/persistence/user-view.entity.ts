import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { UserStatus } from '#platform/contracts';

/** Read model of a chat user, updated inline with every User event. */
@Entity({ schema: 'chat_sim', tableName: 'users' })
export class UserView {
  @PrimaryKey({ type: 'text' })
  userId!: string;

  @Property({ type: 'text' })
  orgId!: string;

  /** Lower-cased; unique across the chat product. */
  @Property({ type: 'text', unique: true })
  email!: string;

  @Property({ type: 'text', nullable: true })
  displayName: string | null = null;

  @Property({ type: 'text' })
  status!: UserStatus;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  /** Stream version of the last event applied. */
  @Property({ type: 'integer' })
  version!: number;
}
