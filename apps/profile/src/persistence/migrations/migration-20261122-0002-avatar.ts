import { Migration } from '@mikro-orm/migrations';

/** Where the avatar's bytes are, so each read can hand out a fresh download URL (D17). */
export class Migration20261122000200ProfileAvatar extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table profile.apps add column avatar_object_key text`);
  }
}
