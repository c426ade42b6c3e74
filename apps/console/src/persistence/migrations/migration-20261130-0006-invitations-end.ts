import { Migration } from '@mikro-orm/migrations';

export class Migration20261130000600ConsoleInvitationsEnd extends Migration {
  override async up(): Promise<void> {
    // When an invitation was withdrawn, replaced by a newer one or outlived by its address's removal:
    // the members page lists it no longer (the decider refuses it either way).
    this.addSql(`alter table console.invitations add column ended_at timestamptz`);
    // Invitations sent before replacements were recorded: a newer one to the same address ended them.
    this.addSql(`update console.invitations i
      set ended_at = (select min(n.invited_at) from console.invitations n where n.app_id = i.app_id and n.email = i.email and n.invited_at > i.invited_at)
      where i.accepted_at is null
        and exists (select 1 from console.invitations n where n.app_id = i.app_id and n.email = i.email and n.invited_at > i.invited_at)`);
  }
}
