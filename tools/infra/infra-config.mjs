/** Where the infrastructure lives and how it is configured: paths, ports, versions (environment read on each call). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------
// Paths and configuration
// ---------------------------------------------------------------------------

export const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(SCRIPT_DIR, '..', '..');
export const DATA = path.join(REPO_ROOT, '.data');
export const DIRS = {
  cache: path.join(DATA, 'cache'),
  kafka: path.join(DATA, 'kafka'),
  s3: path.join(DATA, 's3'),
  logs: path.join(DATA, 'logs'),
  run: path.join(DATA, 'run'),
  pg: path.join(DATA, 'pg'),
  mail: path.join(DATA, 'mail'),
};
export const HOST = '127.0.0.1';

export const KAFKA_READY_TIMEOUT_MS = 90_000;
export const S3_READY_TIMEOUT_MS = 60_000;
export const PG_READY_TIMEOUT_MS = 60_000;
export const MAIL_READY_TIMEOUT_MS = 15_000;
export const STOP_TIMEOUT_MS = 20_000;

/** Lib bundles fetched from Maven Central; one pom and one directory each (their trees conflict). */
export const LIBS = {
  kafka: {
    label: 'Kafka',
    pom: path.join(SCRIPT_DIR, 'kafka', 'pom.xml'),
    dir: path.join(DIRS.cache, 'kafka-libs'),
  },
  s3proxy: {
    label: 'S3Proxy',
    pom: path.join(SCRIPT_DIR, 's3proxy', 'pom.xml'),
    dir: path.join(DIRS.cache, 's3proxy-libs'),
  },
};

export const COMPONENTS = ['kafka', 's3', 'postgres', 'mail'];

export class InfraError extends Error {}

export function envPort(name, def) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new InfraError(`${name}=${raw} is not a valid TCP port (1-65535).`);
  }
  return n;
}

/** Reads the environment every call, so callers may change process.env between calls. */
export function infraConfig() {
  const kafkaPort = envPort('KAFKA_PORT', 9092);
  const kafkaControllerPort = envPort('KAFKA_CONTROLLER_PORT', 9093);
  if (kafkaPort === kafkaControllerPort) {
    throw new InfraError(`KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ (both are ${kafkaPort}).`);
  }
  // Off unless set: a second listener speaking SASL_SSL with SCRAM-SHA-512, as production's does.
  const kafkaSecurePort = envPort('KAFKA_SECURE_PORT', null);
  if (kafkaSecurePort !== null && (kafkaSecurePort === kafkaPort || kafkaSecurePort === kafkaControllerPort)) {
    throw new InfraError(`KAFKA_SECURE_PORT must differ from KAFKA_PORT and KAFKA_CONTROLLER_PORT (it is ${kafkaSecurePort}).`);
  }
  const s3Port = envPort('S3_PORT', 9000);
  const pgPort = envPort('PGPORT', 5432);
  const mailSmtpPort = envPort('MAIL_SMTP_PORT', 1025);
  const mailHttpPort = envPort('MAIL_HTTP_PORT', 1080);
  if (mailSmtpPort === mailHttpPort) throw new InfraError(`MAIL_SMTP_PORT and MAIL_HTTP_PORT must differ (both are ${mailSmtpPort}).`);
  const pgUser = process.env.PGUSER || 'postgres';
  const databases = (process.env.PG_DATABASES || 'platform,platform_test')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const db of databases) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) {
      throw new InfraError(`PG_DATABASES: "${db}" is not a plain database name (letters, digits, _).`);
    }
  }
  if (databases.length === 0) throw new InfraError('PG_DATABASES is empty.');
  const bucket = process.env.S3_BUCKET || 'platform-media';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new InfraError(`S3_BUCKET=${bucket} is not a valid S3 bucket name.`);
  }
  return {
    kafka: { port: kafkaPort, controllerPort: kafkaControllerPort, securePort: kafkaSecurePort },
    s3: {
      port: s3Port,
      endpoint: `http://${HOST}:${s3Port}`,
      accessKeyId: process.env.S3_ACCESS_KEY_ID || 'local-access-key',
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY || 'local-secret-key',
      region: process.env.S3_REGION || 'us-east-1',
      bucket,
    },
    pg: { port: pgPort, user: pgUser, databases },
    mail: { smtpPort: mailSmtpPort, httpPort: mailHttpPort },
  };
}

export function connectionValues(cfg) {
  const pgUrl = (db) => `postgres://${encodeURIComponent(cfg.pg.user)}@${HOST}:${cfg.pg.port}/${db}`;
  return {
    KAFKA_BROKERS: `${HOST}:${cfg.kafka.port}`,
    S3_ENDPOINT: cfg.s3.endpoint,
    S3_REGION: cfg.s3.region,
    S3_BUCKET: cfg.s3.bucket,
    S3_ACCESS_KEY_ID: cfg.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: cfg.s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    SMTP_URL: `smtp://${HOST}:${cfg.mail.smtpPort}`,
    MAIL_SINK_URL: `http://${HOST}:${cfg.mail.httpPort}`,
    DATABASE_URL: pgUrl(cfg.pg.databases[0]),
    ...(cfg.pg.databases.includes('platform_test') && cfg.pg.databases[0] !== 'platform_test' ? { TEST_DATABASE_URL: pgUrl('platform_test') } : {}),
  };
}

// KAFKA_DIR: a second broker beside the default one (a chaos run's, on other KAFKA_PORT and
// KAFKA_CONTROLLER_PORT) keeps its configuration, data, cluster id, pid file and log there.
export const KAFKA_HOME = process.env.KAFKA_DIR ? path.resolve(process.env.KAFKA_DIR) : DIRS.kafka;
export const KAFKA = {
  home: KAFKA_HOME,
  ownDir: Boolean(process.env.KAFKA_DIR),
  serverProps: path.join(KAFKA_HOME, 'server.properties'),
  dataDir: path.join(KAFKA_HOME, 'data'),
  clusterIdFile: path.join(KAFKA_HOME, 'cluster-id'),
  log4j: path.join(SCRIPT_DIR, 'kafka', 'log4j2.properties'),
  logFile: process.env.KAFKA_DIR ? path.join(KAFKA_HOME, 'kafka.log') : path.join(DIRS.logs, 'kafka.log'),
};
