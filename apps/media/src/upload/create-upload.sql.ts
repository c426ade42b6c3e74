import type { Statement } from '#platform/postgres';

/** The statements of CreateUploadHandler: D14's per-app lock and count. */

/** Takes the app's upload-rate lock, held to the commit, so concurrent requests are counted one after the other. */
export function uploadRateLockStatement(appId: string): Statement {
  return { sql: `select pg_advisory_xact_lock(hashtext(?))`, params: [`media-rate:${appId}`] };
}

/** A row of uploadsSinceStatement (bigint: the driver's text). */
export interface UploadCountRow {
  count: string;
}

/** How many uploads the app requested after `since` (D14); always one row. */
export function uploadsSinceStatement(appId: string, since: Date): Statement {
  return { sql: `select count(*) as count from media.media where app_id = ? and source = 'app' and created_at > ?`, params: [appId, since] };
}
