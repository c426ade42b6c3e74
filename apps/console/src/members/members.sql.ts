import type { Statement } from '#platform/postgres';

/** The statements of MembersHandler: the app an invitation names, and the invitation a token names. */

/** A row of appNameStatement. */
export interface AppNameRow {
  display_name: string;
}

/** The app's display name, for the invitation email (none for an app the console has not seen). */
export function appNameStatement(appId: string): Statement {
  return { sql: `select display_name from console.apps where app_id = ?`, params: [appId] };
}

/** A row of invitationStatement. */
export interface InvitationRow {
  app_id: string;
}

/** The app of the invitation with this token hash (none for a token nobody issued). */
export function invitationStatement(tokenHash: string): Statement {
  return { sql: `select app_id from console.invitations where token_hash = ?`, params: [tokenHash] };
}
