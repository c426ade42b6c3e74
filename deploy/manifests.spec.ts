/**
 * Renders the Kustomize overlays (`kubectl kustomize deploy/overlays/<overlay>`) and checks the
 * objects: every app has its workloads, probes, resources, pinned image, policies and metrics; every
 * topic of libs/contracts has its KafkaTopic; every alert of docs/operations.md has its rule, on
 * metrics the code registers; production commits no secret, its Kafka users have the ACLs of the
 * access map in libs/contracts, and it ships every Grafana dashboard as a ConfigMap. Without kubectl
 * this test fails (it does not skip): the manifests would otherwise go unchecked.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { allTopicSpecs, isKafkaApp, kafkaAcls, PRODUCTION_KAFKA_APPS, strimziKafkaUser, type TopicSpec } from '#platform/contracts';
import { trustedProxiesFromEnv } from '#platform/service-kit';
import { dashboardFiles, dashboardQueries, documentedAlerts, headingAnchor, metricsIn, registeredMetrics, ROOT } from './monitoring.test-helpers';

type K8s = Record<string, any>;

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const IMAGE = 'ghcr.io/example/business-messaging-platform';
const PART_OF = { 'app.kubernetes.io/part-of': 'business-messaging-platform' };
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8'];
const MONITORING = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };

/** Every app of the monorepo (apps/<app>/src/main.ts): a new app without manifests fails the dev overlay. */
const ALL_APPS = readdirSync(path.join(ROOT, 'apps')).filter((app) => existsSync(path.join(ROOT, 'apps', app, 'src', 'main.ts')));
const DEV_ONLY = ['chat-sim'];
const OVERLAYS = [
  { overlay: 'prod', namespace: 'platform', apps: ALL_APPS.filter((app) => !DEV_ONLY.includes(app)) },
  { overlay: 'dev', namespace: 'platform-dev', apps: ALL_APPS },
];

/** Variables .env.example documents (set or commented out), plus APP, which the Dockerfile documents. */
const DOCUMENTED_ENV = new Set(['APP', ...[...readFileSync(path.join(ROOT, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1])]);

function render(overlay: string): K8s[] {
  let output: string;
  try {
    output = execFileSync(KUBECTL, ['kustomize', path.join(ROOT, 'deploy', 'overlays', overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error(
        `'${KUBECTL}' not found: deploy/manifests.spec.ts renders the Kustomize overlays with \`kubectl kustomize\`; install kubectl (or set KUBECTL to its path).`,
      );
    }
    throw new Error(`kubectl kustomize deploy/overlays/${overlay} failed:\n${e.stderr || e.message}`);
  }
  const documents = parseAllDocuments(output);
  for (const document of documents) if (document.errors.length > 0) throw new Error(`unparsable output of overlay ${overlay}: ${document.errors[0].message}`);
  return documents.map((document) => document.toJSON() as K8s).filter(Boolean);
}

function topicSpecs(): TopicSpec[] {
  // The manifests name the topics without a namespace prefix, as production runs.
  const saved = process.env.KAFKA_NAMESPACE;
  delete process.env.KAFKA_NAMESPACE;
  try {
    return allTopicSpecs();
  } finally {
    if (saved !== undefined) process.env.KAFKA_NAMESPACE = saved;
  }
}

/** A Grafana dashboard ConfigMap (deploy/dashboards): JSON, not configuration. */
const isDashboard = (configMap: K8s) => configMap.metadata.labels?.grafana_dashboard === '1';
const ofKind = (objects: K8s[], kind: string) => objects.filter((o) => o.kind === kind);
function named(objects: K8s[], kind: string, name: string): K8s {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind}/${name} in the rendered overlay`);
  return found;
}
/** matchLabels ⊆ labels; the manifests use no matchExpressions, so this is the whole selector. */
function selects(selector: K8s | undefined, labels: Record<string, string> = {}): boolean {
  expect(selector?.matchExpressions).toBeUndefined();
  return Object.entries(selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}
/** A Service's selector is a plain label map (and an empty one would select nothing useful). */
const serviceSelects = (service: K8s, labels: Record<string, string>) =>
  Object.keys(service.spec.selector ?? {}).length > 0 && selects({ matchLabels: service.spec.selector }, labels);
const podLabels = (workload: K8s): Record<string, string> => workload.spec.template.metadata.labels;
const containersOf = (workload: K8s): K8s[] => [...(workload.spec.template.spec.initContainers ?? []), ...workload.spec.template.spec.containers];
/** The app a Deployment or Job runs (its app.kubernetes.io/name). */
const appOf = (workload: K8s): string => workload.metadata.labels['app.kubernetes.io/name'];
const envValue = (container: K8s, name: string): string | undefined => container.env?.find((e: K8s) => e.name === name)?.value;
/** The port of the app's /healthz, /readyz and /metrics: ADMIN_PORT on the gateway, INTERNAL_PORT on the console, PORT elsewhere. */
const healthPort = (container: K8s): number => Number(envValue(container, 'ADMIN_PORT') ?? envValue(container, 'INTERNAL_PORT') ?? envValue(container, 'PORT'));
/** A variable as the container sees it: its own env, else the ConfigMaps of its envFrom (a secretKeyRef counts as set). */
function effectiveEnv(objects: K8s[], container: K8s, name: string): string | undefined {
  const own = container.env?.find((e: K8s) => e.name === name);
  if (own) return own.value ?? (own.valueFrom ? '(from a reference)' : undefined);
  for (const source of container.envFrom ?? []) {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef?.name);
    if (configMap?.data?.[name] !== undefined) return configMap.data[name];
  }
  return undefined;
}
function containerPort(container: K8s, port: string | number): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((p: K8s) => p.name === port)?.containerPort;
}

describe('metricsIn (the PromQL check of the alert rules and the dashboards)', () => {
  it('finds the selected metrics, not functions, labels, keywords or durations', () => {
    expect(
      metricsIn('histogram_quantile(0.99, sum by (namespace, le) (rate(http_request_duration_seconds_bucket{route="/a", method="POST"}[5m]))) > 1'),
    ).toEqual(['http_request_duration_seconds_bucket']);
    expect(metricsIn('sum by (ns) (rate(a_total[5m])) > 1 and sum(rate(a_total[5m])) > 3 * sum(rate(b_total[1h] offset 5m))')).toEqual(['a_total', 'b_total']);
    expect(metricsIn('deriv(sum by (c) (kafka_consumer_lag)[10m:1m]) > 0 unless on (c) up{job="x"} == 0')).toEqual(['kafka_consumer_lag', 'up']);
  });
});

describe.each(OVERLAYS)('deploy/overlays/$overlay', ({ overlay, namespace, apps }) => {
  let objects: K8s[] = [];
  let deployments: K8s[] = [];
  let workloads: K8s[] = [];
  beforeAll(() => {
    objects = render(overlay);
    deployments = ofKind(objects, 'Deployment');
    workloads = [...deployments, ...ofKind(objects, 'Job')];
  });

  it('renders well-formed objects, in the overlay namespace (KafkaTopics in Strimzi’s `kafka`)', () => {
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) {
      expect([o.apiVersion, o.kind, o.metadata?.name].every(Boolean)).toBe(true);
      const expected = o.kind === 'Namespace' ? undefined : o.kind === 'KafkaTopic' ? 'kafka' : namespace;
      expect(`${o.kind}/${o.metadata.name} in ${o.metadata.namespace}`).toBe(`${o.kind}/${o.metadata.name} in ${expected}`);
    }
    expect(named(objects, 'Namespace', namespace).metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
  });

  it(`has a Deployment, Service, migrations Job and ingress NetworkPolicy for exactly these apps: ${apps.join(', ')}`, () => {
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...apps].sort());
    for (const app of apps) {
      const deployment = named(objects, 'Deployment', app);
      expect(ofKind(objects, 'Service').some((s) => serviceSelects(s, podLabels(deployment)))).toBe(true);
      expect(ofKind(objects, 'NetworkPolicy').some((p) => p.spec.ingress?.length && selects(p.spec.podSelector, podLabels(deployment)))).toBe(true);
      const job = named(objects, 'Job', `${app}-migrate`);
      const [container] = job.spec.template.spec.containers;
      expect({ app, APP: envValue(container, 'APP'), MIGRATE_ONLY: envValue(container, 'MIGRATE_ONLY') }).toEqual({ app, APP: app, MIGRATE_ONLY: 'true' });
      expect(['Never', 'OnFailure']).toContain(job.spec.template.spec.restartPolicy);
    }
    for (const absent of ALL_APPS.filter((app) => !apps.includes(app))) {
      // Its RPC topics stay: the gateway subscribes to the replies of every RPC service.
      expect(
        objects
          .filter((o) => o.kind !== 'KafkaTopic' && (o.metadata.labels?.['app.kubernetes.io/name'] === absent || o.metadata.name.startsWith(absent)))
          .map((o) => `${o.kind}/${o.metadata.name}`),
      ).toEqual([]);
    }
  });

  it('runs the app named by the Deployment, with readiness /readyz and liveness /healthz on the port serving them', () => {
    for (const deployment of deployments) {
      const containers = deployment.spec.template.spec.containers;
      expect(containers).toHaveLength(1);
      const [container] = containers;
      const name = deployment.metadata.name;
      expect({ name, APP: envValue(container, 'APP') }).toEqual({ name, APP: name });
      const port = healthPort(container);
      expect(port).toBeGreaterThan(0);
      const probes = ['readinessProbe', 'livenessProbe', 'startupProbe'].filter((p) => container[p]);
      expect(probes.slice(0, 2)).toEqual(['readinessProbe', 'livenessProbe']);
      for (const probe of probes) {
        const get = container[probe].httpGet;
        expect({ name, probe, path: get?.path, port: containerPort(container, get?.port) }).toEqual({
          name,
          probe,
          path: probe === 'readinessProbe' ? '/readyz' : '/healthz',
          port,
        });
      }
    }
  });

  it('tells the gateway and the console (Deployments and Jobs) which proxies to believe: TRUSTED_PROXIES, a range production accepts', () => {
    const behindIngress = workloads.filter((w) => ['gateway', 'console'].includes(appOf(w)));
    expect(behindIngress.length).toBe(4);
    for (const workload of behindIngress) {
      for (const container of containersOf(workload)) {
        const where = `${workload.kind}/${workload.metadata.name}`;
        const value = effectiveEnv(objects, container, 'TRUSTED_PROXIES');
        // The ingress controller sits in front of both: `none` would make every client the ingress pod.
        expect([where, typeof value, value?.trim().toLowerCase() === 'none']).toEqual([where, 'string', false]);
        expect(() => trustedProxiesFromEnv({ TRUSTED_PROXIES: value }, true)).not.toThrow();
      }
    }
  });

  it('gives every container (Deployments and Jobs) resource requests and limits and a locked-down security context', () => {
    for (const workload of workloads) {
      const pod = workload.spec.template.spec;
      for (const container of containersOf(workload)) {
        const where = `${workload.kind}/${workload.metadata.name} ${container.name}`;
        for (const bound of ['requests', 'limits'])
          for (const resource of ['cpu', 'memory'])
            expect([where, bound, resource, container.resources?.[bound]?.[resource]]).toEqual([where, bound, resource, expect.anything()]);
        const security = { ...pod.securityContext, ...container.securityContext };
        expect([where, security.runAsNonRoot, security.readOnlyRootFilesystem, security.allowPrivilegeEscalation]).toEqual([where, true, true, false]);
        expect(Number.isInteger(security.runAsUser) && security.runAsUser > 0).toBe(true);
      }
    }
  });

  it("leaves every container (Deployments and Jobs) the image's command, so deploy/start-app.sh and its memory settings apply", () => {
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        const where = `${workload.kind}/${workload.metadata.name} ${container.name}`;
        expect({ where, command: container.command, args: container.args }).toEqual({ where });
      }
    }
  });

  it('runs the one platform image, pinned to a version or digest (never latest, never untagged)', () => {
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        const image: string = container.image;
        const [, name, tag, digest] = /^(.+?)(?::([^:@/]+))?(?:@(sha256:[0-9a-f]{64}))?$/.exec(image) ?? [];
        expect({ image, name }).toEqual({ image, name: IMAGE });
        expect({ image, pinned: Boolean(digest) || (Boolean(tag) && tag !== 'latest') }).toEqual({ image, pinned: true });
      }
    }
  });

  it('defines a KafkaTopic for every topic of libs/contracts, with its partitions, retention and cleanup policy', () => {
    const topics = ofKind(objects, 'KafkaTopic');
    const actual = topics.map((t) => ({ name: t.spec.topicName ?? t.metadata.name, partitions: t.spec.partitions, config: t.spec.config }));
    const expected = topicSpecs().map((s) => ({ name: s.name, partitions: s.partitions, config: s.config }));
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect(actual.sort(byName)).toEqual(expected.sort(byName));
    for (const topic of topics) {
      expect(topic.apiVersion).toBe('kafka.strimzi.io/v1beta2');
      expect(topic.metadata.labels?.['strimzi.io/cluster']).toBeTruthy();
      expect(topic.spec.replicas).toBe(overlay === 'prod' ? 3 : 1);
    }
  });

  it('autoscales gateway and webhook-dispatcher; those Deployments leave the replica count to their HPA', () => {
    const hpas = ofKind(objects, 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(['gateway', 'webhook-dispatcher']);
    for (const hpa of hpas) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      const target = named(objects, hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name);
      expect(target.kind).toBe('Deployment');
      expect(target.spec.replicas).toBeUndefined();
      expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa.spec.maxReplicas).toBeGreaterThanOrEqual(hpa.spec.minReplicas);
      expect(hpa.spec.metrics.length).toBeGreaterThan(0);
    }
  });

  it('covers every Deployment running more than one replica with a PodDisruptionBudget', () => {
    const minReplicas = (d: K8s) =>
      d.spec.replicas ?? ofKind(objects, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === d.metadata.name)?.spec.minReplicas ?? 1;
    if (overlay === 'prod') for (const d of deployments) expect([d.metadata.name, minReplicas(d) >= 2]).toEqual([d.metadata.name, true]);
    for (const deployment of deployments.filter((d) => minReplicas(d) > 1)) {
      const pdbs = ofKind(objects, 'PodDisruptionBudget').filter((p) => selects(p.spec.selector, podLabels(deployment)));
      expect([deployment.metadata.name, pdbs.length]).toEqual([deployment.metadata.name, 1]);
    }
  });

  describe('NetworkPolicies', () => {
    const policiesFor = (labels: Record<string, string>) => ofKind(objects, 'NetworkPolicy').filter((p) => selects(p.spec.podSelector, labels));
    const coversPort = (rule: K8s, container: K8s, port: number) => !rule.ports || rule.ports.some((p: K8s) => containerPort(container, p.port) === port);

    it('deny everything by default, in and out', () => {
      const deny = ofKind(objects, 'NetworkPolicy').find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress);
      expect(deny?.spec.policyTypes?.sort()).toEqual(['Egress', 'Ingress']);
    });

    it('let only webhook-dispatcher out to the internet, and never to private, loopback or link-local ranges', () => {
      for (const policy of ofKind(objects, 'NetworkPolicy')) {
        for (const rule of policy.spec.egress ?? []) {
          expect(rule.to?.length).toBeGreaterThan(0); // no rule without destinations (= anywhere)
          for (const peer of rule.to.filter((p: K8s) => ['0.0.0.0/0', '::/0'].includes(p.ipBlock?.cidr))) {
            const selected = deployments.filter((d) => selects(policy.spec.podSelector, podLabels(d))).map((d) => d.metadata.name);
            expect([policy.metadata.name, selected, workloads.filter((w) => selects(policy.spec.podSelector, podLabels(w))).length]).toEqual([
              policy.metadata.name,
              ['webhook-dispatcher'],
              1,
            ]);
            if (peer.ipBlock.cidr === '0.0.0.0/0') expect(peer.ipBlock.except).toEqual(expect.arrayContaining(PRIVATE_RANGES));
          }
        }
      }
      const dispatcher = named(objects, 'Deployment', 'webhook-dispatcher');
      expect(
        policiesFor(podLabels(dispatcher)).some((p) => p.spec.egress?.some((r: K8s) => r.to.some((peer: K8s) => peer.ipBlock?.cidr === '0.0.0.0/0'))),
      ).toBe(true);
    });

    it('give every app DNS egress and let Prometheus in `monitoring` reach its /metrics port', () => {
      for (const deployment of deployments) {
        const [container] = deployment.spec.template.spec.containers;
        const policies = policiesFor(podLabels(deployment));
        const name = deployment.metadata.name;
        const scraped = policies.some((p) =>
          p.spec.ingress?.some(
            (r: K8s) =>
              coversPort(r, container, healthPort(container)) && (!r.from || r.from.some((peer: K8s) => JSON.stringify(peer) === JSON.stringify(MONITORING))),
          ),
        );
        const dns = policies.some((p) => p.spec.egress?.some((r: K8s) => r.ports?.some((port: K8s) => port.port === 53)));
        expect({ name, scraped, dns }).toEqual({ name, scraped: true, dns: true });
      }
    });

    it('open the gateway’s public port to all, its admin port only to this namespace and Prometheus', () => {
      const gateway = named(objects, 'Deployment', 'gateway');
      const [container] = gateway.spec.template.spec.containers;
      const adminPort = Number(envValue(container, 'ADMIN_PORT'));
      const publicPort = Number(envValue(container, 'PORT'));
      const rules = policiesFor(podLabels(gateway)).flatMap((p) => p.spec.ingress ?? []);
      expect(rules.some((r) => coversPort(r, container, publicPort) && !r.from)).toBe(true);
      const adminRules = rules.filter((r) => coversPort(r, container, adminPort));
      expect(adminRules.length).toBeGreaterThan(0);
      for (const rule of adminRules) {
        expect(rule.from?.length).toBeGreaterThan(0);
        for (const peer of rule.from) {
          const sameNamespace = peer.podSelector !== undefined && peer.namespaceSelector === undefined && peer.ipBlock === undefined;
          expect({ peer, allowed: sameNamespace || JSON.stringify(peer) === JSON.stringify(MONITORING) }).toEqual({ peer, allowed: true });
        }
      }
    });

    it('keep the console’s /readyz and /metrics off its public port: probes and scraping on INTERNAL_PORT, open to `monitoring` only', () => {
      const consoleApp = named(objects, 'Deployment', 'console');
      const [container] = consoleApp.spec.template.spec.containers;
      const publicPort = Number(envValue(container, 'PORT'));
      const internalPort = Number(envValue(container, 'INTERNAL_PORT'));
      expect({ internalPort: internalPort > 0, differs: internalPort !== publicPort }).toEqual({ internalPort: true, differs: true });
      for (const probe of ['readinessProbe', 'livenessProbe', 'startupProbe'])
        expect([probe, containerPort(container, container[probe]?.httpGet?.port)]).toEqual([probe, internalPort]);
      const rules = policiesFor(podLabels(consoleApp)).flatMap((p) => p.spec.ingress ?? []);
      expect(rules.some((r) => coversPort(r, container, publicPort) && !r.from)).toBe(true);
      const internalRules = rules.filter((r) => coversPort(r, container, internalPort));
      expect(internalRules.length).toBeGreaterThan(0);
      for (const rule of internalRules) {
        expect(rule.from?.length).toBeGreaterThan(0);
        for (const peer of rule.from) expect(JSON.stringify(peer)).toBe(JSON.stringify(MONITORING));
      }
      // Prometheus scrapes the internal port and nothing else of the console.
      const [monitor] = ofKind(objects, 'ServiceMonitor');
      const scraped = ofKind(objects, 'Service')
        .filter((service) => selects(monitor.spec.selector, service.metadata.labels) && serviceSelects(service, podLabels(consoleApp)))
        .flatMap((service) => service.spec.ports.filter((port: K8s) => monitor.spec.endpoints.some((e: K8s) => e.port === port.name)))
        .map((port: K8s) => containerPort(container, port.targetPort ?? port.port));
      expect(scraped).toEqual([internalPort]);
    });
  });

  it('has Services whose target ports exist, and a ServiceMonitor scraping /metrics of every app', () => {
    const services = ofKind(objects, 'Service');
    for (const service of services) {
      const target = deployments.find((d) => serviceSelects(service, podLabels(d)));
      expect([service.metadata.name, target?.metadata.name]).toEqual([service.metadata.name, expect.any(String)]);
      for (const port of service.spec.ports)
        expect([service.metadata.name, port.name, containerPort(target!.spec.template.spec.containers[0], port.targetPort ?? port.port)]).toEqual([
          service.metadata.name,
          port.name,
          expect.any(Number),
        ]);
    }
    const [monitor, ...more] = ofKind(objects, 'ServiceMonitor');
    expect(more).toEqual([]);
    expect(monitor.apiVersion).toBe('monitoring.coreos.com/v1');
    for (const deployment of deployments) {
      const [container] = deployment.spec.template.spec.containers;
      const scraped = services.some(
        (service) =>
          selects(monitor.spec.selector, service.metadata.labels) &&
          serviceSelects(service, podLabels(deployment)) &&
          service.spec.ports.some(
            (port: K8s) =>
              containerPort(container, port.targetPort) === healthPort(container) &&
              monitor.spec.endpoints.some((endpoint: K8s) => endpoint.port === port.name && endpoint.path === '/metrics'),
          ),
      );
      expect([deployment.metadata.name, scraped]).toEqual([deployment.metadata.name, true]);
    }
  });

  it('has a PrometheusRule with each alert of docs/operations.md, a severity, its runbook section, and only metrics the services register', () => {
    const [rule, ...more] = ofKind(objects, 'PrometheusRule');
    expect(more).toEqual([]);
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.metadata.labels).toMatchObject(PART_OF);
    const rules: K8s[] = rule.spec.groups.flatMap((group: K8s) => group.rules);
    const { alerts, anchors } = documentedAlerts();
    expect(alerts.length).toBeGreaterThan(0);
    expect(rules.map((r) => r.alert).sort()).toEqual([...alerts].sort());
    const exported = registeredMetrics();
    for (const r of rules) {
      const anchor = headingAnchor(r.alert);
      expect({
        alert: r.alert,
        severity: r.labels?.severity,
        runbook: r.annotations?.runbook_url,
        documented: anchors.has(anchor),
        summary: typeof r.annotations?.summary,
      }).toEqual({
        alert: r.alert,
        severity: expect.stringMatching(/^(critical|warning|info)$/),
        runbook: `docs/operations.md#${anchor}`,
        documented: true,
        summary: 'string',
      });
      const used = metricsIn(r.expr);
      expect({ alert: r.alert, uses: used.length > 0 }).toEqual({ alert: r.alert, uses: true });
      for (const metric of used) expect({ alert: r.alert, metric, registered: exported.has(metric) }).toEqual({ alert: r.alert, metric, registered: true });
    }
  });

  it('references only rendered ConfigMaps, documented variables, and Secrets it may hold (none in prod)', () => {
    const configMaps = ofKind(objects, 'ConfigMap');
    const secrets = ofKind(objects, 'Secret');
    if (overlay === 'prod') {
      expect(secrets.filter((s) => s.data || s.stringData).map((s) => s.metadata.name)).toEqual([]);
      const config = configMaps.find((c) => c.metadata.name.startsWith('platform-config'));
      expect([config?.data.NODE_ENV, config?.data.CLOCK_MODE]).toEqual(['production', 'system']);
    }
    // Every ConfigMap but the dashboards' holds configuration: variables .env.example documents.
    for (const configMap of configMaps.filter((c) => !isDashboard(c)))
      for (const key of Object.keys(configMap.data ?? {})) expect([key, DOCUMENTED_ENV.has(key)]).toEqual([key, true]);
    for (const workload of workloads) {
      for (const container of containersOf(workload)) {
        for (const source of container.envFrom ?? []) expect(configMaps.some((c) => c.metadata.name === source.configMapRef?.name)).toBe(true);
        for (const variable of container.env ?? []) {
          expect([variable.name, DOCUMENTED_ENV.has(variable.name)]).toEqual([variable.name, true]);
          const ref = variable.valueFrom?.secretKeyRef;
          if (!ref) continue;
          // In prod: the operator's platform-secrets, or the Kafka password of the app's own KafkaUser.
          if (overlay === 'prod')
            expect([variable.name, ref.name]).toEqual([variable.name, variable.name === 'KAFKA_SASL_PASSWORD' ? appOf(workload) : 'platform-secrets']);
          else
            expect([ref.name, ref.key, secrets.some((s) => s.metadata.name === ref.name && s.data?.[ref.key] !== undefined)]).toEqual([
              ref.name,
              ref.key,
              true,
            ]);
        }
      }
    }
  });

  if (overlay === 'prod') {
    it('connects every app (Deployments and migrations Jobs) to Kafka over TLS with SCRAM-SHA-512 as its own KafkaUser', () => {
      const users = ofKind(objects, 'KafkaUser');
      expect(users.map((u) => u.metadata.name).sort()).toEqual([...apps].sort());
      for (const user of users) {
        expect(user.metadata.labels).toMatchObject({ 'strimzi.io/cluster': 'platform' });
        expect(user.spec.authentication).toEqual({ type: 'scram-sha-512' });
        expect(user.spec.authorization?.type).toBe('simple');
      }
      const config = ofKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('platform-config'));
      for (const workload of workloads) {
        const app = appOf(workload);
        for (const container of containersOf(workload)) {
          const env = (name: string) =>
            (container.env ?? []).find((v: K8s) => v.name === name) ?? (config?.data[name] !== undefined ? { value: config.data[name] } : undefined);
          const where = `${workload.kind}/${workload.metadata.name}`;
          expect([where, env('KAFKA_SSL')?.value, env('KAFKA_SASL_MECHANISM')?.value, env('KAFKA_SASL_USERNAME')?.value]).toEqual([
            where,
            'true',
            'scram-sha-512',
            app,
          ]);
          expect([where, env('KAFKA_SASL_PASSWORD')?.valueFrom?.secretKeyRef]).toEqual([where, { name: app, key: 'password' }]);
          // The cluster CA, mounted where KAFKA_SSL_CA_FILE points.
          const caFile = env('KAFKA_SSL_CA_FILE')?.value as string;
          const mount = (container.volumeMounts ?? []).find((m: K8s) => caFile?.startsWith(`${m.mountPath}/`));
          const volume = workload.spec.template.spec.volumes.find((v: K8s) => v.name === mount?.name);
          expect([where, volume?.secret?.secretName]).toEqual([where, 'platform-cluster-ca-cert']);
        }
      }
      expect(config?.data.KAFKA_BROKERS).toMatch(/:9093$/);
    });

    it('gives each KafkaUser the ACLs of the Kafka access map in libs/contracts: its own topics and groups, no wildcard', () => {
      const config = ofKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('platform-config'));
      // Names as the apps build them: under the overlay's KAFKA_NAMESPACE (none in production).
      const namespace: string = config?.data.KAFKA_NAMESPACE ?? '';
      for (const user of ofKind(objects, 'KafkaUser')) {
        const app: string = user.metadata.name;
        expect({ app, known: isKafkaApp(app) }).toEqual({ app, known: true });
        const acls: K8s[] = user.spec.authorization.acls;
        expect({ app, acls }).toEqual({ app, acls: isKafkaApp(app) ? kafkaAcls(app, namespace) : [] });
        for (const acl of acls) expect({ app, name: acl.resource.name ?? '(cluster)' }).not.toEqual({ app, name: expect.stringContaining('*') });
      }
    });

    it('provisions every dashboard of deploy/dashboards as a ConfigMap labelled grafana_dashboard, its JSON as in the file', () => {
      const provisioned = ofKind(objects, 'ConfigMap').filter(isDashboard);
      const files = dashboardFiles();
      expect(files.length).toBeGreaterThan(0);
      expect(provisioned.map((c) => c.metadata.name).sort()).toEqual(files.map(({ file }) => `grafana-dashboard-${file.replace(/\.json$/, '')}`).sort());
      for (const { file, text } of files) {
        const [configMap, ...more] = provisioned.filter((c) => c.data?.[file] !== undefined);
        expect({ file, more: more.length, keys: Object.keys(configMap?.data ?? {}) }).toEqual({ file, more: 0, keys: [file] });
        expect(configMap.metadata.labels).toMatchObject({ grafana_dashboard: '1', ...PART_OF });
        expect(JSON.parse(configMap.data[file])).toEqual(JSON.parse(text));
        // `kubectl apply` keeps the whole object, its JSON escaped once more, in an annotation of at most 256 KiB.
        expect({ file, fitsApply: Buffer.byteLength(configMap.data[file]) < 200 * 1024 }).toEqual({ file, fitsApply: true });
      }
    });

    it('names in the dashboards only jobs the ServiceMonitor scrapes (Prometheus names the job after the Service)', () => {
      const [monitor] = ofKind(objects, 'ServiceMonitor');
      const scraped = new Set(
        ofKind(objects, 'Service')
          .filter(
            (s) =>
              selects(monitor.spec.selector, s.metadata.labels) && s.spec.ports.some((p: K8s) => monitor.spec.endpoints.some((e: K8s) => e.port === p.name)),
          )
          .map((s) => s.metadata.name),
      );
      const jobs = dashboardFiles().flatMap(({ file, dashboard }) =>
        dashboardQueries(dashboard).flatMap(({ where, expr }) =>
          [...expr.matchAll(/\bjob\s*=~?\s*"([^"$]*)"/g)].flatMap((m) => m[1].split('|').map((job) => ({ file, where, job }))),
        ),
      );
      expect(jobs.length).toBeGreaterThan(0);
      for (const { file, where, job } of jobs) expect({ file, where, job, scraped: scraped.has(job) }).toEqual({ file, where, job, scraped: true });
    });

    it('ships overlays/prod/kafka-users.yaml as generated from the map (stale: `npm run build` rewrites it)', () => {
      const shipped = parseAllDocuments(readFileSync(path.join(ROOT, 'deploy', 'overlays', 'prod', 'kafka-users.yaml'), 'utf8')).map((d) => d.toJSON());
      expect(shipped).toEqual(PRODUCTION_KAFKA_APPS.map((app) => strimziKafkaUser(app, '')));
    });
  }

  it('labels every workload as part of the platform (the shared egress policy and the ServiceMonitor select on it)', () => {
    for (const workload of workloads) expect(podLabels(workload)).toMatchObject(PART_OF);
  });
});
