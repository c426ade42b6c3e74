/**
 * The Grafana dashboards of deploy/dashboards: each is a dashboard Grafana can load (uid, title,
 * panels with queries, on the data source its `datasource` variable picks), whose queries name only
 * metrics the services register, as the alert rules are checked in deploy/manifests.spec.ts; and
 * every alert of docs/operations.md has a panel there ("Dashboards") that shows what it evaluates.
 * deploy/manifests.spec.ts checks that the prod overlay provisions them.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { dashboardFiles, dashboardQueries, documentedAlerts, metricsIn, operationsSection, panelsOf, registeredMetrics, ROOT } from './monitoring.test-helpers';

/** The dashboards architecture section 12 asks for. */
const REQUIRED = ['platform-overview.json', 'public-api.json', 'messaging-consent.json', 'webhooks.json', 'kafka-consumers-relay.json'];
const DATASOURCE = '${datasource}';

const dashboards = dashboardFiles();

/** The alert rules as shipped (deploy/base/common/prometheusrule.yaml), by alert name. */
function alertExpressions(): Map<string, string> {
  const rule = parse(readFileSync(path.join(ROOT, 'deploy', 'base', 'common', 'prometheusrule.yaml'), 'utf8'));
  return new Map(rule.spec.groups.flatMap((group: { rules: { alert: string; expr: string }[] }) => group.rules.map((r) => [r.alert, r.expr] as const)));
}

/** The rows of the table in docs/operations.md, "Dashboards": alert, dashboard file, panel title. */
function documentedPanels(): { alert: string; file: string; panel: string }[] {
  return [...operationsSection('Dashboards').matchAll(/^\| \[(\w+)\]\(#\w+\) \| [^|]*`([\w-]+\.json)`[^|]* \| ([^|]+?) \|$/gm)].map((m) => ({
    alert: m[1],
    file: m[2],
    panel: m[3],
  }));
}

describe('deploy/dashboards', () => {
  const exported = registeredMetrics();

  it('has the dashboards of architecture section 12, each with its own uid and title', () => {
    expect(dashboards.map((d) => d.file)).toEqual(expect.arrayContaining(REQUIRED));
    const uids = dashboards.map((d) => d.dashboard.uid);
    const titles = dashboards.map((d) => d.dashboard.title);
    for (const { file, dashboard } of dashboards) {
      // Grafana refuses uids over 40 characters; a stable uid keeps links and the sidecar's updates in place.
      expect({ file, uid: /^[a-z0-9-]{1,40}$/.test(dashboard.uid ?? ''), title: typeof dashboard.title }).toEqual({ file, uid: true, title: 'string' });
    }
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it.each(dashboards.map((d) => [d.file, d.dashboard] as const))(
    '%s: every panel has a query, on the data source of the `datasource` variable, and uses only defined variables',
    (file, dashboard) => {
      const variables = dashboard.templating?.list ?? [];
      expect(variables.find((v) => v.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
      const panels = panelsOf(dashboard);
      expect(panels.length).toBeGreaterThan(0);
      const ids = panels.map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of panels) {
        const targets = panel.targets ?? [];
        const where = `${file}: panel "${panel.title}"`;
        expect({ where, title: typeof panel.title, queries: targets.length > 0 && targets.every((t) => (t.expr ?? '').trim() !== '') }).toEqual({
          where,
          title: 'string',
          queries: true,
        });
        const datasources = [panel, ...targets].map((p) => (p as { datasource?: { uid?: string } }).datasource?.uid);
        expect({ where, datasources }).toEqual({ where, datasources: datasources.map(() => DATASOURCE) });
      }
      const defined = new Set(variables.map((v) => v.name));
      for (const { where, expr } of dashboardQueries(dashboard))
        for (const [, name] of expr.matchAll(/\$\{?(\w+)/g))
          if (!name.startsWith('__'))
            expect({ file, where, variable: name, defined: defined.has(name) }).toEqual({ file, where, variable: name, defined: true });
    },
  );

  it.each(dashboards.map((d) => [d.file, d.dashboard] as const))('%s: every query names only metrics the services register', (file, dashboard) => {
    const queries = dashboardQueries(dashboard);
    expect(queries.length).toBeGreaterThan(0);
    for (const { where, expr } of queries) {
      const used = metricsIn(expr);
      expect({ file, where, uses: used.length > 0 }).toEqual({ file, where, uses: true });
      for (const metric of used) expect({ file, where, metric, registered: exported.has(metric) }).toEqual({ file, where, metric, registered: true });
    }
  });

  it('maps every alert of docs/operations.md to a panel ("Dashboards") that queries the metrics the alert evaluates', () => {
    const { alerts } = documentedAlerts();
    const rows = documentedPanels();
    expect(alerts.length).toBeGreaterThan(0);
    for (const alert of alerts) expect({ alert, panels: rows.filter((r) => r.alert === alert).length > 0 }).toEqual({ alert, panels: true });
    const expressions = alertExpressions();
    for (const row of rows) {
      expect({ ...row, documented: alerts.includes(row.alert) }).toEqual({ ...row, documented: true });
      const dashboard = dashboards.find((d) => d.file === row.file)?.dashboard;
      const panel = dashboard && panelsOf(dashboard).find((p) => p.title === row.panel);
      expect({ ...row, found: panel !== undefined }).toEqual({ ...row, found: true });
      const shown = new Set((panel?.targets ?? []).flatMap((t) => metricsIn(t.expr ?? '')));
      const evaluated = metricsIn(expressions.get(row.alert) ?? '');
      expect(evaluated.length).toBeGreaterThan(0);
      expect({ ...row, missing: evaluated.filter((m) => !shown.has(m)) }).toEqual({ ...row, missing: [] });
    }
  });
});
