import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/** Read model of an organization, updated inline with every Org event. */
@Entity({ schema: 'chat_sim', tableName: 'orgs' })
export class OrgView {
  @PrimaryKey({ type: 'text' })
  orgId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'boolean' })
  allowsExternalBusinesses!: boolean;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;

  /** Stream version of the last event applied. */
  @Property({ type: 'integer' })
  version!: number;
}
