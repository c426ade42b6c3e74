import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { ClockMode } from '#platform/clock';
import { GROUP_SESSION_TIMEOUT_MS, kafkaSecurityFromEnv, KafkaSecurityError, parseBrokers, type KafkaSecurity } from '#platform/kafka';
import { ConfigError } from './config-error';
import { optionalSecretFromEnv, secretFromEnv } from './production-secrets';

export { ConfigError } from './config-error';

/** Configuration every service reads from its environment (architecture section 9; `.env.example` documents it). */
export interface BaseConfig {
  serviceName: string;
  /** Postgres schema the service owns; its role is `svc_<schema>`. */
  schema: string;
  port: number;
  /** Address every HTTP port of the process listens on (BIND_HOST): loopback unless told, containers set 0.0.0.0. */
  bindHost: string;
  production: boolean;
  /** Admin connection: used only to create the service's role and schema. */
  databaseUrl: string;
  /** The service's own connection (role limited to its schema). */
  serviceDatabaseUrl: string;
  /** DB_SERVICE_PASSWORD: the password given to the service's role when it is created or bootstrapped (none when unset). */
  serviceDatabasePassword: string | undefined;
  kafkaBrokers: string[];
  /** TLS and SASL of every Kafka client of the process (KAFKA_SSL_*, KAFKA_SASL_*). */
  kafkaSecurity: KafkaSecurity;
  clockMode: ClockMode;
  /** Unique per process: pod name plus random suffix. */
  instanceId: string;
  appUserIdSecret: string;
  docsUrl: string;
  rpcTimeoutMs: number;
  /** Gateway requests a service handles at once (RPC_MAX_IN_FLIGHT, default 64). */
  rpcMaxInFlight: number;
  /** Of those, the most one app's requests hold at once (RPC_MAX_IN_FLIGHT_PER_APP, default half of them). */
  rpcMaxInFlightPerApp: number;
  /**
   * One app's requests waiting for a slot; one more is answered 429 at once (RPC_MAX_WAITING_PER_APP,
   * default four times RPC_MAX_IN_FLIGHT: above the request burst the gateway lets an app make, so a
   * burst it admits is never refused here).
   */
  rpcMaxWaitingPerApp: number;
  /**
   * Session of the service's consumer groups (KAFKA_SESSION_TIMEOUT_MS): how long a killed replica
   * holds its partitions, so how long its replacement waits to be ready. The broker must allow it
   * (group.min.session.timeout.ms at or below it).
   */
  kafkaSessionTimeoutMs: number;
  /** MIGRATE_ONLY=true: create the role and schema, run the migrations and exit 0 (the Kubernetes migrations Job). */
  migrateOnly: boolean;
  /** The environment the config was read from, for a service's own settings. */
  env: NodeJS.ProcessEnv;
}

export function loadBaseConfig(serviceName: string, schema: string, defaultPort: number, env: NodeJS.ProcessEnv = process.env): BaseConfig {
  const production = env.NODE_ENV === 'production';
  const clockMode = (env.CLOCK_MODE ?? 'system') as ClockMode;
  if (clockMode !== 'system' && clockMode !== 'test') throw new ConfigError(`CLOCK_MODE must be system or test, not ${clockMode}`);
  if (production && clockMode === 'test') throw new ConfigError('CLOCK_MODE=test is for dev and tests only; refusing to start in production');
  const databaseUrl = env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/platform';
  const appUserIdSecret = secretFromEnv(env, 'APP_USER_ID_SECRET', production);
  const serviceDatabasePassword = optionalSecretFromEnv(env, 'DB_SERVICE_PASSWORD', production);
  const migrateOnly = env.MIGRATE_ONLY ?? 'false';
  // Strict: a typo would start the whole service inside a Job that then never completes.
  if (migrateOnly !== 'true' && migrateOnly !== 'false') throw new ConfigError(`MIGRATE_ONLY must be true or false, not ${migrateOnly}`);
  const bindHost = env.BIND_HOST ?? '127.0.0.1';
  if (isIP(bindHost) === 0) throw new ConfigError(`BIND_HOST must be an IP address (127.0.0.1, 0.0.0.0, ::), not ${JSON.stringify(bindHost)}`);
  let kafkaSecurity: KafkaSecurity;
  try {
    kafkaSecurity = kafkaSecurityFromEnv(env, { production });
  } catch (error) {
    throw error instanceof KafkaSecurityError ? new ConfigError(error.message) : error;
  }
  const rpcMaxInFlight = positiveInteger(env, 'RPC_MAX_IN_FLIGHT', 64);
  return {
    serviceName,
    schema,
    port: Number(env.PORT ?? defaultPort),
    bindHost,
    production,
    databaseUrl,
    serviceDatabaseUrl: env.SERVICE_DATABASE_URL ?? serviceUrlFor(databaseUrl, `svc_${schema}`, serviceDatabasePassword),
    serviceDatabasePassword,
    kafkaBrokers: parseBrokers(env.KAFKA_BROKERS),
    kafkaSecurity,
    clockMode,
    instanceId: env.INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    appUserIdSecret,
    docsUrl: env.DOCS_URL ?? 'https://docs.example.com/platform',
    rpcTimeoutMs: Number(env.RPC_TIMEOUT_MS ?? 5000),
    rpcMaxInFlight,
    rpcMaxInFlightPerApp: Math.min(rpcMaxInFlight, positiveInteger(env, 'RPC_MAX_IN_FLIGHT_PER_APP', Math.max(1, Math.floor(rpcMaxInFlight / 2)))),
    rpcMaxWaitingPerApp: positiveInteger(env, 'RPC_MAX_WAITING_PER_APP', 4 * rpcMaxInFlight),
    kafkaSessionTimeoutMs: sessionTimeout(env),
    migrateOnly: migrateOnly === 'true',
    env,
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`${name} must be a positive integer, not ${raw}`);
  return value;
}

function sessionTimeout(env: NodeJS.ProcessEnv): number {
  const value = positiveInteger(env, 'KAFKA_SESSION_TIMEOUT_MS', GROUP_SESSION_TIMEOUT_MS);
  // Below a second, one slow heartbeat under load is a rebalance; above five minutes, a dead replica's partitions wait that long.
  if (value < 1_000 || value > 300_000) throw new ConfigError(`KAFKA_SESSION_TIMEOUT_MS must be between 1000 and 300000, not ${value}`);
  return value;
}

/** The admin URL with the user (and password) of the service's role. */
export function serviceUrlFor(adminUrl: string, role: string, password?: string): string {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = password ?? '';
  return url.toString();
}
