import type { Statement } from '#platform/postgres';

/** The version of an app messaging's projection has reached; no row: none yet. */
export function appVersionStatement(appId: string): Statement {
  return { sql: `select version from messaging.apps where app_id = ?`, params: [appId] };
}
