import type { DomainEvent, TemplateResource, TemplateStatus } from '#platform/contracts';
import { storedEventGuard } from '#platform/event-store';
import type { Statement } from '#platform/postgres';
import { isoTime, type DbTimestamp } from '#platform/service-kit';
import type { TemplateEvent, TemplateFacts, TemplateState } from './template.state';

/** Whether a stored event is one of a template stream's. */
export const isTemplateEvent = storedEventGuard<TemplateEvent>({
  TemplateCreated: true,
  TemplateChanged: true,
  TemplateApproved: true,
  TemplateRejected: true,
  TemplateDeleted: true,
});

export const TEMPLATE_EVENT_TYPES = ['TemplateCreated', 'TemplateChanged', 'TemplateApproved', 'TemplateRejected', 'TemplateDeleted'];

/**
 * The inline projection of template streams into messaging.templates, one statement per event in
 * stream order. A verdict applies to the version it names (as evolveTemplate folds it); a deleted
 * template's row goes, freeing its name and language.
 */
export function templateProjectionStatements(events: DomainEvent[]): Statement[] {
  const statements: Statement[] = [];
  for (const event of events) {
    if (!isTemplateEvent(event)) continue;
    const at = new Date(event.occurredAt);
    switch (event.type) {
      case 'TemplateCreated': {
        const d = event.data;
        statements.push({
          sql: `insert into messaging.templates (template_id, app_id, name, language, category, components, variables, examples, status, rejected_reason, version, created_at, updated_at)
                values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, 'pending', null, 1, ?, ?)`,
          params: [
            d.templateId,
            d.appId,
            d.name,
            d.language,
            d.category,
            JSON.stringify(d.components),
            JSON.stringify(d.variables),
            JSON.stringify(d.examples),
            at,
            at,
          ],
        });
        break;
      }
      case 'TemplateChanged': {
        const d = event.data;
        statements.push({
          sql: `update messaging.templates set category = ?, components = ?::jsonb, variables = ?::jsonb, examples = ?::jsonb,
                  status = 'pending', rejected_reason = null, version = ?, updated_at = ? where template_id = ?`,
          params: [d.category, JSON.stringify(d.components), JSON.stringify(d.variables), JSON.stringify(d.examples), d.version, at, d.templateId],
        });
        break;
      }
      case 'TemplateApproved':
      case 'TemplateRejected': {
        const d = event.data;
        const [status, reason] = event.type === 'TemplateApproved' ? ['approved', null] : ['rejected', d.reason];
        statements.push({
          sql: `update messaging.templates set status = ?, rejected_reason = ?, updated_at = ? where template_id = ? and version = ?`,
          params: [status, reason, at, d.templateId, d.version],
        });
        break;
      }
      case 'TemplateDeleted':
        statements.push({ sql: `delete from messaging.templates where template_id = ?`, params: [event.data.templateId] });
        break;
    }
  }
  return statements;
}

/** A row of messaging.templates, as the statements of template.sql.ts select it. */
export interface TemplateRow {
  template_id: string;
  app_id: string;
  name: string;
  language: string;
  category: TemplateFacts['category'];
  /** jsonb: parsed by the driver, or its text. */
  components: TemplateFacts['components'] | string;
  variables: string[] | string;
  examples: Record<string, string> | string;
  status: TemplateStatus;
  rejected_reason: string | null;
  version: number;
  created_at: DbTimestamp;
  updated_at: DbTimestamp;
}

const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/** The template resource of a row. */
export function templateResource(row: TemplateRow): TemplateResource {
  return {
    id: row.template_id,
    name: row.name,
    language: row.language,
    category: row.category,
    components: json(row.components),
    variables: json(row.variables),
    status: row.status,
    rejectedReason: row.rejected_reason,
    version: Number(row.version),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

/** A send's template as the rules see it: the app's template of the name and language asked for, or none. */
export function templateStateOf(row: Omit<TemplateRow, 'created_at' | 'updated_at'> | null): TemplateState {
  if (row === null) return { kind: 'absent' };
  return {
    kind: 'live',
    template: {
      templateId: row.template_id,
      appId: row.app_id,
      name: row.name,
      language: row.language,
      category: row.category,
      components: json(row.components),
      variables: json(row.variables),
      examples: json(row.examples),
      version: Number(row.version),
      status: row.status,
      rejectedReason: row.rejected_reason,
    },
  };
}
