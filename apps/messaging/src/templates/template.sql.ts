import type { TemplateStatus } from '#platform/contracts';
import type { Statement } from '#platform/postgres';

/** The statements of the template handler: the facts of a decision and the reads of `/templates`. */

const COLUMNS = 'template_id, app_id, name, language, category, components, variables, examples, status, rejected_reason, version, created_at, updated_at';

/**
 * Serialises the app's template creations (count and name checks, then the insert) so that two cannot
 * both take the last of the 250 places or the same name; held to the commit.
 */
export function appTemplatesLockStatement(appId: string): Statement {
  return { sql: `select pg_advisory_xact_lock(hashtextextended(?, 0))`, params: [`templates:${appId}`] };
}

/** What a creation is decided on: the app's status (null: messaging has not seen the app), its templates and whether the name and language are taken. */
export function createFactsStatement(appId: string, name: string, language: string): Statement {
  return {
    sql: `select (select status from messaging.apps where app_id = ?) as app_status,
                 (select count(*) from messaging.templates where app_id = ?)::int as templates,
                 exists (select 1 from messaging.templates where app_id = ? and name = ? and language = ?) as taken`,
    params: [appId, appId, appId, name, language],
  };
}

/** The app's status, for a change (a sandbox app's version is approved at once). */
export function appStatusStatement(appId: string): Statement {
  return { sql: `select status from messaging.apps where app_id = ?`, params: [appId] };
}

/** One template of an app (none for another app's or a deleted one). */
export function templateStatement(appId: string, templateId: string): Statement {
  return { sql: `select ${COLUMNS} from messaging.templates where template_id = ? and app_id = ?`, params: [templateId, appId] };
}

/** One template whatever its app (the operators' review). */
export function anyTemplateStatement(templateId: string): Statement {
  return { sql: `select ${COLUMNS} from messaging.templates where template_id = ?`, params: [templateId] };
}

/** A page of an app's templates, newest first (ids sort by creation time), one more than `limit` to tell whether a next page exists. */
export function listTemplatesStatement(q: {
  appId: string;
  name: string | null;
  status: TemplateStatus | null;
  language: string | null;
  limit: number;
  before: string | null;
}): Statement {
  const where = ['app_id = ?'];
  const params: unknown[] = [q.appId];
  for (const [column, value] of [
    ['name', q.name],
    ['status', q.status],
    ['language', q.language],
  ] as const) {
    if (value === null) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (q.before !== null) {
    where.push('template_id < ?');
    params.push(q.before);
  }
  return { sql: `select ${COLUMNS} from messaging.templates where ${where.join(' and ')} order by template_id desc limit ?`, params: [...params, q.limit + 1] };
}
