import type { Statement } from '#platform/postgres';

/** D8's counter of an app on a UTC day (`YYYY-MM-DD`); no row: none accepted. */
export function dailyCountStatement(appId: string, day: string): Statement {
  return { sql: `select accepted from messaging.daily_counts where app_id = ? and day = ?`, params: [appId, day] };
}
