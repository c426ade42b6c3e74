import type { RebuildEvent, RebuildQuery, RebuildSession } from '#platform/event-store';
import { isTemplateEvent } from './template.projection';

/**
 * messaging.templates rebuilt from the template streams: the same rows templateProjectionStatements
 * keeps inline. Templates are few (at most 250 an app), so every row touched stays in memory until
 * the flush; a row a later page changes after a flush is read back from the target first.
 */
interface TemplateRebuildRow {
  template_id: string;
  app_id: string;
  name: string;
  language: string;
  category: string;
  components: string;
  variables: string;
  examples: string;
  status: string;
  rejected_reason: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS: [keyof TemplateRebuildRow, string][] = [
  ['template_id', 'text'],
  ['app_id', 'text'],
  ['name', 'text'],
  ['language', 'text'],
  ['category', 'text'],
  ['components', 'jsonb'],
  ['variables', 'jsonb'],
  ['examples', 'jsonb'],
  ['status', 'text'],
  ['rejected_reason', 'text'],
  ['version', 'integer'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
];
const asText = (t: string) => t === 'jsonb' || t === 'timestamptz';

/** One template event on its row, as the inline projection changes it (undefined: no row, or deleted). */
export function applyTemplateEvent(row: TemplateRebuildRow | undefined, e: RebuildEvent): TemplateRebuildRow | undefined {
  const event = e.stored;
  if (!isTemplateEvent(event)) return row;
  const at = e.occurredAt;
  switch (event.type) {
    case 'TemplateCreated': {
      const d = event.data;
      const content = { components: JSON.stringify(d.components), variables: JSON.stringify(d.variables), examples: JSON.stringify(d.examples) };
      const identity = { template_id: d.templateId, app_id: d.appId, name: d.name, language: d.language, category: d.category };
      return { ...identity, ...content, status: 'pending', rejected_reason: null, version: 1, created_at: at, updated_at: at };
    }
    case 'TemplateChanged': {
      const d = event.data;
      if (!row) return row;
      const content = { components: JSON.stringify(d.components), variables: JSON.stringify(d.variables), examples: JSON.stringify(d.examples) };
      return { ...row, ...content, category: d.category, status: 'pending', rejected_reason: null, version: d.version, updated_at: at };
    }
    case 'TemplateApproved':
      return row && row.version === event.data.version ? { ...row, status: 'approved', rejected_reason: null, updated_at: at } : row;
    case 'TemplateRejected':
      return row && row.version === event.data.version ? { ...row, status: 'rejected', rejected_reason: event.data.reason, updated_at: at } : row;
    case 'TemplateDeleted':
      return undefined;
  }
}

export class TemplateRebuildSession implements RebuildSession {
  /** Rows by template id; null: deleted (removed from the target on flush). */
  private readonly rows = new Map<string, TemplateRebuildRow | null>();

  async applyPage(query: RebuildQuery, target: string, events: RebuildEvent[]): Promise<void> {
    const idOf = (e: RebuildEvent) => e.data.templateId as string;
    const missing = [...new Set(events.filter((e) => e.type !== 'TemplateCreated' && !this.rows.has(idOf(e))).map(idOf))];
    if (missing.length > 0) {
      const existing = await query<TemplateRebuildRow>(
        `select ${COLUMNS.map(([c, t]) => (asText(t) ? `${c}::text as ${c}` : c)).join(', ')} from ${target}.templates where template_id = any($1)`,
        [missing],
      );
      for (const row of existing) this.rows.set(row.template_id, row);
    }
    for (const e of events) this.rows.set(idOf(e), applyTemplateEvent(this.rows.get(idOf(e)) ?? undefined, e) ?? null);
  }

  async flush(query: RebuildQuery, target: string): Promise<void> {
    const live = [...this.rows.values()].filter((row): row is TemplateRebuildRow => row !== null);
    const gone = [...this.rows.entries()].filter(([, row]) => row === null).map(([id]) => id);
    this.rows.clear();
    if (gone.length > 0) await query(`delete from ${target}.templates where template_id = any($1)`, [gone]);
    if (live.length === 0) return;
    await query(
      `insert into ${target}.templates (${COLUMNS.map(([c]) => c).join(', ')})
       select ${COLUMNS.map(([c, t]) => (asText(t) ? `${c}::${t}` : c)).join(', ')}
       from unnest(${COLUMNS.map(([, t], n) => `$${n + 1}::${asText(t) ? 'text' : t}[]`).join(', ')}) as t(${COLUMNS.map(([c]) => c).join(', ')})
       on conflict (template_id) do update set ${COLUMNS.slice(1)
         .map(([c]) => `${c} = excluded.${c}`)
         .join(', ')}`,
      COLUMNS.map(([c]) => live.map((row) => row[c])),
    );
  }
}
