/**
 * ./docker-compose.yml and ./Dockerfile, checked statically: no Docker engine runs where the tests
 * do (docs/adr/0110-deployment-files-tested-without-a-cluster.md). The stack is Kafka in KRaft mode,
 * Postgres, MinIO and every app of apps/, each long-running service with a health check and
 * dependencies that wait for health; the apps get every variable they read (or are listed below with
 * the reason they do not), under the names .env.example documents; the image is multi-stage on a
 * pinned node:24, runs as a non-root user and carries production dependencies only.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';

type Compose = Record<string, any>;

const ROOT = path.resolve(__dirname, '..');
const APPS = readdirSync(path.join(ROOT, 'apps')).filter((app) => existsSync(path.join(ROOT, 'apps', app, 'src', 'main.ts')));
const COMPOSE_TEXT = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const DOCKERFILE_TEXT = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
/** Variables .env.example documents (set or commented out), plus APP, which the Dockerfile documents (as in manifests.spec.ts). */
const DOCUMENTED_ENV = new Set(['APP', ...[...readFileSync(path.join(ROOT, '.env.example'), 'utf8').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1])]);

/** What the apps read but compose deliberately does not pass, and why. */
const NOT_IN_COMPOSE: Record<string, string> = {
  INSTANCE_ID: 'the default (hostname, pid, random) already differs per container',
  KAFKA_NAMESPACE: 'the stack has its broker to itself',
  MIGRATE_ONLY: 'the apps migrate at start; migrate-only runs are the Kubernetes Jobs',
  SERVICE_DATABASE_URL: 'derived from DATABASE_URL and DB_SERVICE_PASSWORD',
  WEBHOOK_DEV_HOSTS: 'dev/test only, refused in production; see the comment on webhook-dispatcher',
  WEBHOOK_CA_FILE: 'dev/test only and needs a mounted file; see the comment on webhook-dispatcher',
  WEBHOOK_DNS_SERVERS: 'dev/test only, refused in production; see the comment on webhook-dispatcher',
  CONSOLE_PORT: 'compose sets PORT, which the console reads as every app does',
  MAIL_SINK_URL: 'dev/test only (the local SMTP sink of tools/infra), refused in production',
  ...Object.fromEntries(
    [
      'KAFKA_SSL',
      'KAFKA_SSL_CA_FILE',
      'KAFKA_SSL_CERT_FILE',
      'KAFKA_SSL_KEY_FILE',
      'KAFKA_SSL_REJECT_UNAUTHORIZED',
      'KAFKA_SASL_MECHANISM',
      'KAFKA_SASL_USERNAME',
      'KAFKA_SASL_PASSWORD',
    ].map((name) => [name, "the stack's broker has plaintext listeners only; TLS and SASL are for brokers that offer them (the prod overlay)"]),
  ),
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.ts$/.test(name) && !/\.(spec|test-helpers)\.ts$/.test(name) && !/\.fixture\.ts$/.test(name) ? [file] : [];
  });
}

/** Environment variables read by production code (`env.X`, `env['X']`, `(env, 'X'`), excluding the test library and the SDK. */
function variablesReadIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)\b|\benv\[['"]([A-Z][A-Z0-9_]+)['"]\]|\(env, ['"]([A-Z][A-Z0-9_]+)['"]/g))
      names.add(m[1] ?? m[2] ?? m[3]);
  }
  return names;
}
const LIBS_READ = variablesReadIn(
  readdirSync(path.join(ROOT, 'libs'))
    // The SDK is a client for businesses, never loaded by an app (type:sdk): its examples read no service setting.
    .filter((lib) => lib !== 'testing' && lib !== 'sdk')
    .flatMap((lib) => sourceFiles(path.join(ROOT, 'libs', lib, 'src'))),
);
const appReads = (app: string) => new Set([...LIBS_READ, ...variablesReadIn(sourceFiles(path.join(ROOT, 'apps', app, 'src')))]);

function parseCompose(): Compose {
  // `<<: *anchor` merge keys are YAML 1.1; the yaml package needs them asked for.
  const document = parseDocument(COMPOSE_TEXT, { merge: true });
  if (document.errors.length > 0) throw new Error(`docker-compose.yml: ${document.errors[0].message}`);
  return document.toJSON() as Compose;
}

/** `environment` as a map whether written as a map or as a list of KEY=VALUE. */
function environmentOf(service: Compose): Record<string, string | number | null> {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry: string) => [entry.split('=', 1)[0], entry.includes('=') ? entry.slice(entry.indexOf('=') + 1) : null]));
}

/** Variables compose itself substitutes (`${NAME}`, `${NAME:-default}`), not the `$$` escapes meant for a shell. */
function interpolated(text: string): Set<string> {
  return new Set([...text.replace(/\$\$/g, '').matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
}

const oneShot = (service: Compose) => service.restart === 'no';
const imageTag = (image: string) => /^[^@]+:([^:/@]+)$/.exec(image)?.[1];

describe('docker-compose.yml', () => {
  const compose = parseCompose();
  const services: Record<string, Compose> = compose.services;

  it('runs Kafka (KRaft, no ZooKeeper), Postgres, MinIO and exactly the apps of apps/, each app built from ./Dockerfile with its APP', () => {
    for (const infra of ['kafka', 'postgres', 'minio']) expect(Object.keys(services)).toContain(infra);
    expect(services.postgres.image).toMatch(/^postgres:/);
    expect(services.minio.image).toMatch(/^minio\/minio:/);
    const kafka = environmentOf(services.kafka);
    expect(String(kafka.KAFKA_PROCESS_ROLES).split(',').sort()).toEqual(['broker', 'controller']);
    expect(kafka.KAFKA_CONTROLLER_QUORUM_VOTERS).toBeTruthy();
    expect(kafka.KAFKA_CONTROLLER_LISTENER_NAMES).toBeTruthy();
    expect(kafka.CLUSTER_ID).toBeTruthy();
    // The services create their topics with their own partitions and retention (libs/contracts).
    expect(String(kafka.KAFKA_AUTO_CREATE_TOPICS_ENABLE)).toBe('false');
    expect(COMPOSE_TEXT).not.toMatch(/zookeeper/i);

    const built = Object.entries(services).filter(([, s]) => s.build);
    expect(built.map(([name]) => name).sort()).toEqual([...APPS].sort());
    for (const [name, service] of built) {
      expect({ name, context: service.build.context, dockerfile: service.build.dockerfile, APP: service.build.args?.APP }).toEqual({
        name,
        context: '.',
        dockerfile: 'Dockerfile',
        APP: name,
      });
    }
  });

  it("leaves each app the image's command, so deploy/start-app.sh and its memory settings apply", () => {
    for (const app of APPS) expect({ app, command: services[app].command, entrypoint: services[app].entrypoint }).toEqual({ app });
  });

  it('pins every image it pulls (a tag that is not latest, or a digest)', () => {
    for (const [name, service] of Object.entries(services).filter(([, s]) => !s.build)) {
      const image: string = service.image;
      expect({ name, pinned: image.includes('@sha256:') || (imageTag(image) !== undefined && imageTag(image) !== 'latest') }).toEqual({ name, pinned: true });
    }
  });

  it('gives every long-running service a health check (one-shot services run to completion instead)', () => {
    for (const [name, service] of Object.entries(services)) {
      if (oneShot(service)) continue;
      const test = service.healthcheck?.test;
      expect({ name, test: Array.isArray(test) && test.length > 1 && test[0] !== 'NONE' && !service.healthcheck.disable }).toEqual({ name, test: true });
    }
    for (const app of APPS) {
      const check = JSON.stringify(services[app].healthcheck.test);
      expect({ app, check: check.includes('/healthz') }).toEqual({ app, check: true });
    }
  });

  it('starts a service only once what it depends on is healthy (or, for a one-shot service, completed)', () => {
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = service.depends_on ?? {};
      expect({ name, longForm: !Array.isArray(dependsOn) }).toEqual({ name, longForm: true });
      for (const [target, spec] of Object.entries<Compose>(dependsOn)) {
        expect(Object.keys(services)).toContain(target);
        const expected = oneShot(services[target]) ? 'service_completed_successfully' : 'service_healthy';
        expect({ name, target, condition: spec.condition }).toEqual({ name, target, condition: expected });
      }
    }
    for (const app of APPS)
      expect({ app, dependsOn: Object.keys(services[app].depends_on ?? {}).sort() }).toEqual({ app, dependsOn: expect.arrayContaining(['kafka', 'postgres']) });
  });

  it('passes each app every variable it reads, under the names of .env.example, and no name no app reads', () => {
    const readByAny = new Set(APPS.flatMap((app) => [...appReads(app)]));
    for (const app of APPS) {
      const env = environmentOf(services[app]);
      const missing = [...appReads(app)].filter((name) => !(name in env) && !(name in NOT_IN_COMPOSE));
      expect({ app, missing }).toEqual({ app, missing: [] });
      // The apps share one block of settings (x-app-env), so a name only has to be read by some app.
      const unknown = Object.keys(env).filter((name) => !readByAny.has(name) || !DOCUMENTED_ENV.has(name));
      expect({ app, unknown }).toEqual({ app, unknown: [] });
    }
    for (const name of Object.keys(NOT_IN_COMPOSE))
      expect({ name, readByAnApp: APPS.some((app) => appReads(app).has(name)) }).toEqual({ name, readByAnApp: true });
  });

  it('documents in .env.example every variable it substitutes from the shell or ./.env', () => {
    const undocumented = [...interpolated(COMPOSE_TEXT)].filter((name) => !DOCUMENTED_ENV.has(name));
    expect(undocumented).toEqual([]);
  });

  it('publishes each app on the PORT it listens on (and ADMIN_PORT or INTERNAL_PORT), a port the image exposes', () => {
    const exposed = new Set(
      instructions(DOCKERFILE_TEXT)
        .filter((i) => i.keyword === 'EXPOSE')
        .flatMap((i) => i.args.split(/\s+/).map(Number)),
    );
    for (const app of APPS) {
      const env = environmentOf(services[app]);
      const ports = [env.PORT, env.ADMIN_PORT, env.INTERNAL_PORT].filter((p) => p !== undefined).map(Number);
      const targets = (services[app].ports ?? []).map((p: string) => Number(String(p).split(':').pop()));
      for (const port of ports)
        expect({ app, port, exposed: exposed.has(port), published: targets.includes(port) }).toEqual({ app, port, exposed: true, published: true });
    }
  });
});

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions, continuation lines joined, comments and the parser directive dropped. */
function instructions(text: string): Instruction[] {
  return text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [keyword, ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    });
}

interface Stage {
  name: string;
  image: string;
  body: Instruction[];
}

function stages(text: string): Stage[] {
  const all = instructions(text);
  const firstFrom = all.findIndex((i) => i.keyword === 'FROM');
  // ARGs before the first FROM are the only ones a FROM line can use.
  const globalArgs = Object.fromEntries(
    all
      .slice(0, firstFrom)
      .filter((i) => i.keyword === 'ARG')
      .map((i) => [i.args.split('=', 1)[0], i.args.includes('=') ? i.args.slice(i.args.indexOf('=') + 1) : '']),
  );
  const result: Stage[] = [];
  for (const instruction of all.slice(firstFrom)) {
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.replace(/--platform=\S+\s+/, '').split(/\s+/);
      result.push({
        name: as?.toUpperCase() === 'AS' ? name : String(result.length),
        image: image.replace(/\$\{?(\w+)\}?/g, (_, arg: string) => globalArgs[arg] ?? ''),
        body: [],
      });
    } else result[result.length - 1].body.push(instruction);
  }
  return result;
}

describe('Dockerfile', () => {
  const all = stages(DOCKERFILE_TEXT);
  const runtime = all[all.length - 1];
  const byName = (name: string) => all.find((s) => s.name === name);

  it('is multi-stage, every stage FROM a pinned node:24 image (never latest)', () => {
    expect(all.length).toBeGreaterThan(1);
    for (const stage of all)
      expect({ stage: stage.name, image: stage.image }).toEqual({
        stage: stage.name,
        image: expect.stringMatching(/^node:24(?:[.-][A-Za-z0-9.-]+)?(?:@sha256:[0-9a-f]{64})?$/),
      });
  });

  it('runs the app as a non-root user, in production mode', () => {
    const users = runtime.body.filter((i) => i.keyword === 'USER').map((i) => i.args.split(':')[0]);
    expect(users.length).toBeGreaterThan(0);
    expect(['root', '0']).not.toContain(users[users.length - 1]);
    const lastUser = runtime.body.map((i) => i.keyword).lastIndexOf('USER');
    expect(lastUser).toBeLessThan(runtime.body.findIndex((i) => i.keyword === 'CMD'));
    expect(runtime.body.some((i) => i.keyword === 'ENV' && /\bNODE_ENV=production\b/.test(i.args))).toBe(true);
  });

  it('ships production dependencies only: node_modules from an `npm ci --omit=dev` stage, no dev install in the runtime stage', () => {
    const installsDev = (stage: Stage) =>
      stage.body.some((i) => i.keyword === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.args) && !/--omit[= ]dev\b/.test(i.args));
    expect(installsDev(runtime)).toBe(false);
    const sources = runtime.body.filter((i) => i.keyword === 'COPY' && /node_modules/.test(i.args)).map((i) => /--from=(\S+)/.exec(i.args)?.[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      const stage = source ? byName(source) : runtime;
      expect({
        source,
        omitsDev: stage !== undefined && stage.body.some((i) => i.keyword === 'RUN' && /\bnpm ci\b.*--omit[= ]dev\b/.test(i.args)) && !installsDev(stage),
      }).toEqual({
        source,
        omitsDev: true,
      });
    }
  });

  it('starts dist/apps/$APP/src/main.js with package.json (its #platform/* imports) beside dist/, APP defaulting to an app of apps/', () => {
    const cmd = runtime.body.filter((i) => i.keyword === 'CMD').pop();
    expect(runtime.body.some((i) => i.keyword === 'COPY' && /^package\.json\b.*\s\.\/$/.test(i.args))).toBe(true);
    expect(cmd?.args).not.toMatch(/ -r /);
    expect(cmd?.args).toMatch(/dist\/apps\/\$\{APP\}\/src\/main\.js/);
    const app = runtime.body.find((i) => i.keyword === 'ARG' && i.args.startsWith('APP='))?.args.slice('APP='.length);
    expect(APPS).toContain(app);
  });

  it('starts the app through deploy/start-app.sh, which the runtime stage carries, so the image bounds its memory as every stack does', () => {
    const cmd = runtime.body.filter((i) => i.keyword === 'CMD').pop();
    expect(cmd?.args).toMatch(/deploy\/start-app\.sh node \\?"?dist\/apps\/\$\{APP\}\/src\/main\.js/);
    expect(runtime.body.some((i) => i.keyword === 'COPY' && /^deploy\/start-app\.sh\s+\.\/deploy\/$/.test(i.args))).toBe(true);
    // The build context leaves deploy/ out but for the launcher (the last matching line decides).
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => /^!?deploy(\/start-app\.sh)?\/?$/.test(line.trim()));
    expect(ignored.pop()).toBe('!deploy/start-app.sh');
  });
});
