/**
 * What the alert rules and the Grafana dashboards are checked against: the metrics the services
 * register, the metric names a PromQL expression selects, the alerts docs/operations.md documents,
 * and the dashboards of deploy/dashboards with their queries.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export const ROOT = path.resolve(__dirname, '..');
export const DASHBOARDS_DIR = path.join(ROOT, 'deploy', 'dashboards');

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
export const headingAnchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/** A `## ` section of docs/operations.md, up to the next one. */
export function operationsSection(title: string): string {
  const text = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  return new RegExp(`^## ${title}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text)?.[1] ?? '';
}

/** The alerts docs/operations.md describes: the `###` headings of its "Alerts" section. */
export function documentedAlerts(): { alerts: string[]; anchors: Set<string> } {
  const text = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const anchors = new Set([...text.matchAll(/^#+ (.+)$/gm)].map((m) => headingAnchor(m[1])));
  return { alerts: [...operationsSection('Alerts').matchAll(/^### (\S+)\s*$/gm)].map((m) => m[1]), anchors };
}

const HISTOGRAM_SUFFIXES = ['_bucket', '_count', '_sum'];
const SUMMARY_SUFFIXES = ['_count', '_sum'];

/** The names prom-client's default metrics export (process_*, nodejs_*), read from prom-client itself. */
function defaultMetrics(): string[] {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const names = registry.getMetricsAsArray().flatMap((m) => (m instanceof Histogram ? [m.name, ...HISTOGRAM_SUFFIXES.map((s) => m.name + s)] : [m.name]));
  registry.clear();
  return names;
}

/**
 * Metric names the services export, read from their sources (`new Counter|Gauge|Histogram|Summary({
 * name: ... })` in apps/ and libs/): a histogram also as its `_bucket`, `_count` and `_sum` series;
 * and prom-client's default metrics when a source calls `collectDefaultMetrics`.
 */
export function registeredMetrics(): Set<string> {
  const names = new Set<string>();
  let defaults = false;
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') visit(file);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        const source = readFileSync(file, 'utf8');
        if (/\bcollectDefaultMetrics\(/.test(source)) defaults = true;
        for (const m of source.matchAll(/new (Counter|Gauge|Histogram|Summary)(?:<[^>]*>)?\(\{\s*name:\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g)) {
          const [, type, name] = m;
          names.add(name);
          if (type === 'Histogram') for (const suffix of HISTOGRAM_SUFFIXES) names.add(name + suffix);
          if (type === 'Summary') for (const suffix of SUMMARY_SUFFIXES) names.add(name + suffix);
        }
      }
    }
  };
  visit(path.join(ROOT, 'apps'));
  visit(path.join(ROOT, 'libs'));
  if (defaults) for (const name of defaultMetrics()) names.add(name);
  return names;
}

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/**
 * The metric names a PromQL expression selects: what is left once strings, label matchers, ranges
 * and grouping clauses are taken out, that is neither a function (followed by a parenthesis), a
 * keyword nor a number or duration.
 */
export function metricsIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/\d[\w.]*|[A-Za-z_:][\w:]*/g)) {
    const token = m[0];
    if (/^\d/.test(token) || PROMQL_KEYWORDS.has(token) || /^\s*\(/.test(bare.slice(m.index + token.length))) continue;
    names.add(token);
  }
  return [...names];
}

// Grafana's JSON model, as far as these checks read it.
export type Panel = { id?: number; type: string; title?: string; targets?: { expr?: string; refId?: string }[]; panels?: Panel[] };
export type Variable = { name: string; type: string; query?: string | { query?: string } };
export type Dashboard = { uid?: string; title?: string; panels?: Panel[]; templating?: { list?: Variable[] } };

/** The dashboards of deploy/dashboards, by file name. */
export function dashboardFiles(): { file: string; text: string; dashboard: Dashboard }[] {
  return readdirSync(DASHBOARDS_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const text = readFileSync(path.join(DASHBOARDS_DIR, file), 'utf8');
      return { file, text, dashboard: JSON.parse(text) as Dashboard };
    });
}

/** Every panel but the rows that only group them, rows' own (collapsed) panels included. */
export const panelsOf = (dashboard: Dashboard): Panel[] => (dashboard.panels ?? []).flatMap((p) => (p.type === 'row' ? (p.panels ?? []) : [p]));

/** The PromQL a query variable runs: `label_values(<selector>, <label>)` or `query_result(<expr>)`. */
export function variableExpression(variable: Variable): string | undefined {
  const query = (typeof variable.query === 'string' ? variable.query : variable.query?.query)?.trim() ?? '';
  return /^label_values\((.+),\s*\w+\s*\)$/s.exec(query)?.[1] ?? /^query_result\((.+)\)$/s.exec(query)?.[1];
}

/** Every PromQL expression of a dashboard, with where it is: panel targets and query variables. */
export function dashboardQueries(dashboard: Dashboard): { where: string; expr: string }[] {
  const panels = panelsOf(dashboard).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr ?? '' })),
  );
  const variables = (dashboard.templating?.list ?? [])
    .filter((variable) => variable.type === 'query')
    .map((variable) => ({ where: `variable ${variable.name}`, expr: variableExpression(variable) ?? '' }));
  return [...panels, ...variables];
}
