/**
 * The `<app>-migrate` Jobs against real Postgres: every Job of the rendered overlays (production's,
 * and dev's for chat-sim) runs as its container would, the image's CMD from ./Dockerfile with the
 * Job's environment (its ConfigMap and env, test values for its Secret keys), on a fresh empty
 * database. It must exit 0 with the same tables and applied migrations as a normal start (the test
 * stack's database), again as a no-op, and never touch Kafka or open its HTTP port. Like
 * deploy/manifests.spec.ts it needs kubectl (`kubectl kustomize`).
 */
import { spawn, execFileSync } from 'node:child_process';
import { readdirSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { queryDatabase } from '#platform/testing';

type K8s = Record<string, any>;

const ROOT = path.resolve(__dirname, '..');
const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const APPS = readdirSync(path.join(ROOT, 'apps')).filter((app) => existsSync(path.join(ROOT, 'apps', app, 'src', 'main.ts')));
const schemaOf = (app: string) => app.replace(/-/g, '_');
const STACK_DATABASE_URL = process.env.DATABASE_URL as string;
const FRESH_DATABASE = `${new URL(STACK_DATABASE_URL).pathname.slice(1)}_migrate_jobs`;
const urlOf = (database: string) => Object.assign(new URL(STACK_DATABASE_URL), { pathname: `/${database}` }).toString();
/** Values for the Jobs' secretKeyRefs (DATABASE_URL is the fresh database's); production takes no secret under 32 bytes. */
const TEST_SECRETS: Record<string, string> = {
  DATABASE_URL: urlOf(FRESH_DATABASE),
  ADMIN_TOKEN: 'migrate-jobs-test-admin-token-of-at-least-32-bytes',
  APP_USER_ID_SECRET: 'migrate-jobs-test-app-user-id-secret',
  OPTIN_LINK_SECRET: 'migrate-jobs-test-optin-link-secret',
  WEBHOOK_LISTEN_SECRET: 'migrate-jobs-test-webhook-listen-secret',
  SECRETS_KEYS: `mj:${Buffer.alloc(32, 7).toString('base64')}`,
  SECRETS_ACTIVE_KEY_ID: 'mj',
  SMTP_URL: 'smtp://127.0.0.1:1025',
  // Key of the KafkaUser Secrets (prod: KAFKA_SASL_PASSWORD).
  password: 'migrate-jobs-test-kafka-password',
};
/** Where the Jobs' Secret volumes are "mounted" here: each file holds a placeholder. */
const MOUNTS_DIR = path.join(ROOT, '.data', 'migrate-jobs-mounts');

function render(overlay: string): K8s[] {
  const output = execFileSync(KUBECTL, ['kustomize', path.join(ROOT, 'deploy', 'overlays', overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(output)
    .map((document) => document.toJSON() as K8s)
    .filter(Boolean);
}

/** The Job's container environment as Kubernetes would build it: envFrom ConfigMaps, then env (which wins). */
function jobEnvironment(objects: K8s[], job: K8s): Record<string, string> {
  const [container] = job.spec.template.spec.containers;
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === source.configMapRef?.name);
    if (!configMap) throw new Error(`${job.metadata.name}: no ConfigMap ${source.configMapRef?.name}`);
    Object.assign(env, configMap.data);
  }
  for (const variable of container.env ?? []) {
    const key = variable.valueFrom?.secretKeyRef?.key;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (key === 'DB_SERVICE_PASSWORD')
      continue; // see below
    else if (key && TEST_SECRETS[key] !== undefined) env[variable.name] = TEST_SECRETS[key];
    else throw new Error(`${job.metadata.name}: no test value for ${variable.name}`);
  }
  // Roles are cluster-wide and shared with every other stack on this Postgres: a password set here
  // would change them for all (the local server trusts 127.0.0.1, so none is needed).
  // Files of Secret volumes (the Kafka cluster CA in prod): paths under their mount point moved to a
  // local directory holding a placeholder of each item, as the kubelet would project them.
  for (const mount of container.volumeMounts ?? []) {
    const volume = job.spec.template.spec.volumes.find((v: K8s) => v.name === mount.name);
    if (!volume?.secret) continue;
    const dir = path.join(MOUNTS_DIR, job.metadata.name, mount.name);
    mkdirSync(dir, { recursive: true });
    for (const item of volume.secret.items ?? []) writeFileSync(path.join(dir, item.path), `placeholder of ${volume.secret.secretName}/${item.key}\n`);
    for (const [name, value] of Object.entries(env))
      if (value.startsWith(`${mount.mountPath}/`)) env[name] = path.join(dir, value.slice(mount.mountPath.length + 1));
  }
  return env;
}

/** The image's CMD, as the Job's container runs it (the Job sets no command). */
function imageCommand(): string[] {
  const cmd = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('CMD '))
    .pop();
  if (!cmd) throw new Error('no CMD in Dockerfile');
  return JSON.parse(cmd.slice(4)) as string[];
}

/** A port that refuses nothing and answers nothing: it counts who connects. */
async function trap(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    connections += 1;
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  return { server, port: (server.address() as { port: number }).port, connections: () => connections };
}

interface JobRun {
  app: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: Record<string, any>[];
  output: string;
}

function runJob(app: string, env: Record<string, string>): Promise<JobRun> {
  const [command, ...args] = imageCommand();
  return new Promise((resolve, reject) => {
    // PATH first holds this Node, which the image's `node` stands for.
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // A Job that waits for Kafka or serves would never end: fail with its output instead of hanging.
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const lines = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>);
      resolve({ app, code, signal, lines, output });
    });
  });
}

/** Tables and columns of one schema, in a stable order. */
const shape = (url: string, schema: string) =>
  queryDatabase<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    `select table_name, column_name, data_type, is_nullable from information_schema.columns where table_schema = $1 order by table_name, column_name`,
    [schema],
    url,
  );
const migrations = (url: string, schema: string) =>
  queryDatabase<{ name: string; executed_at: Date }>(`select name, executed_at from ${schema}.mikro_orm_migrations order by name`, [], url);

describe('migrations Jobs (MIGRATE_ONLY=true) on an empty database', () => {
  const adminUrl = urlOf('postgres');
  const freshUrl = urlOf(FRESH_DATABASE);
  let jobs: { app: string; env: Record<string, string> }[] = [];
  let kafka: Awaited<ReturnType<typeof trap>>;
  let http: Awaited<ReturnType<typeof trap>>;
  let adminHttp: Awaited<ReturnType<typeof trap>>;

  beforeAll(async () => {
    const prod = render('prod');
    const dev = render('dev');
    jobs = APPS.map((app) => {
      const objects = [prod, dev].find((o) => o.some((job) => job.kind === 'Job' && job.metadata.name === `${app}-migrate`));
      if (!objects) throw new Error(`no ${app}-migrate Job in the prod or dev overlay`);
      return {
        app,
        env: jobEnvironment(
          objects,
          objects.find((o) => o.kind === 'Job' && o.metadata.name === `${app}-migrate`)!,
        ),
      };
    });
    [kafka, http, adminHttp] = await Promise.all([trap(), trap(), trap()]);
    await queryDatabase(`drop database if exists ${FRESH_DATABASE} with (force)`, [], adminUrl);
    await queryDatabase(`create database ${FRESH_DATABASE}`, [], adminUrl);
  });

  afterAll(async () => {
    await Promise.all([kafka, http, adminHttp].filter(Boolean).map((t) => new Promise((resolve) => t.server.close(resolve))));
    await queryDatabase(`drop database if exists ${FRESH_DATABASE} with (force)`, [], adminUrl);
  });

  /**
   * All Jobs at once, as `kubectl apply` starts them. Kafka points at a trap that counts connections;
   * the HTTP ports are held by traps, so a service that tried to listen would exit 1 (EADDRINUSE).
   */
  const runAll = () =>
    Promise.all(
      jobs.map(({ app, env }) =>
        runJob(app, { ...env, KAFKA_BROKERS: `127.0.0.1:${kafka.port}`, PORT: String(http.port), ADMIN_PORT: String(adminHttp.port) }),
      ),
    );
  const summary = (run: JobRun) => ({
    app: run.app,
    code: run.code,
    signal: run.signal,
    done: run.lines.some((l) => l.msg === 'migrations done, exiting (MIGRATE_ONLY=true)'),
    started: run.lines.some((l) => /started|listening/.test(String(l.msg))),
    output: run.code === 0 ? '' : run.output.slice(-3000),
  });
  const applied = (run: JobRun) => run.lines.find((l) => l.msg === 'migrations applied')?.applied as string[] | undefined;

  it('runs every Job to exit 0 with the schema of a normal start, then again as a no-op, without Kafka or HTTP', async () => {
    expect(jobs.map((j) => j.app).sort()).toEqual([...APPS].sort());
    expect(jobs.filter((j) => j.env.MIGRATE_ONLY !== 'true').map((j) => j.app)).toEqual([]);

    const first = await runAll();
    for (const run of first) expect(summary(run)).toEqual({ app: run.app, code: 0, signal: null, done: true, started: false, output: '' });
    const created = await queryDatabase<{ nspname: string }>(
      `select nspname from pg_namespace where nspname = any($1) order by nspname`,
      [APPS.map(schemaOf)],
      freshUrl,
    );
    expect(created.map((s) => s.nspname)).toEqual(APPS.map(schemaOf).sort());
    const after = new Map<string, { name: string; executed_at: Date }[]>();
    for (const app of APPS) {
      const schema = schemaOf(app);
      const mine = await migrations(freshUrl, schema);
      after.set(app, mine);
      // Same migrations and same tables and columns as the stack's database, which the apps migrated at start.
      expect({ app, migrations: mine.map((m) => m.name) }).toEqual({ app, migrations: (await migrations(STACK_DATABASE_URL, schema)).map((m) => m.name) });
      expect({ app, applied: applied(first.find((r) => r.app === app)!) }).toEqual({ app, applied: mine.map((m) => m.name) });
      const tables = await shape(freshUrl, schema);
      expect(tables.some((c) => c.table_name !== 'mikro_orm_migrations')).toBe(true);
      expect({ app, tables }).toEqual({ app, tables: await shape(STACK_DATABASE_URL, schema) });
    }

    const second = await runAll();
    for (const run of second) expect(summary(run)).toEqual({ app: run.app, code: 0, signal: null, done: true, started: false, output: '' });
    for (const app of APPS) {
      expect({ app, applied: applied(second.find((r) => r.app === app)!) }).toEqual({ app, applied: [] });
      expect({ app, migrations: await migrations(freshUrl, schemaOf(app)) }).toEqual({ app, migrations: after.get(app) });
    }
    expect({ kafka: kafka.connections(), http: http.connections(), adminHttp: adminHttp.connections() }).toEqual({ kafka: 0, http: 0, adminHttp: 0 });
  }, 240_000);
});
