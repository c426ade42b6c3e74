import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** Apps as profile.events describe them: the handle goes into opt-in link URLs. */
@Entity({ schema: 'consent', tableName: 'apps' })
export class AppView {
  @PrimaryKey({ type: 'text' })
  appId!: string;

  @Property({ type: 'text' })
  orgId!: string;

  @Property({ type: 'text' })
  handle!: string;
}
