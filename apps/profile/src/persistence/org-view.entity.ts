import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** Organizations known from chat.user-events; an app can only be created for a known org. */
@Entity({ schema: 'profile', tableName: 'orgs' })
export class OrgView {
  @PrimaryKey({ type: 'text' })
  orgId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'boolean' })
  allowsExternalBusinesses!: boolean;
}
