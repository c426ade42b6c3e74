import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { AppStatus } from '#platform/contracts';

/** The gateway's projection of app status from profile.events (auth decisions need nothing else). */
@Entity({ schema: 'gateway', tableName: 'app_access' })
export class AppAccessView {
  @PrimaryKey({ type: 'text' })
  appId!: string;

  @Property({ type: 'text' })
  orgId!: string;

  @Property({ type: 'text' })
  status!: AppStatus;

  /** Stream version of the last app event applied; older events are ignored. */
  @Property({ type: 'integer' })
  version!: number;
}
