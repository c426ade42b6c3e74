import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { SASLOptions } from 'kafkajs';

/** kafkajs' TLS and SASL settings, beside the brokers of every client a process makes. */
export interface KafkaSecurity {
  ssl?: ConnectionOptions;
  sasl?: SASLOptions;
}

export class KafkaSecurityError extends Error {}

const MECHANISMS = ['scram-sha-512', 'scram-sha-256', 'plain'] as const;
type Mechanism = (typeof MECHANISMS)[number];

export interface KafkaSecurityOptions {
  production: boolean;
  /** Reads a PEM file (tests give their own). */
  readFile?: (file: string) => string;
}

/**
 * KAFKA_SSL, KAFKA_SSL_CA_FILE, KAFKA_SSL_CERT_FILE, KAFKA_SSL_KEY_FILE, KAFKA_SSL_REJECT_UNAUTHORIZED,
 * KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD (.env.example) as kafkajs options.
 * Every half-set combination is refused at start rather than found as a handshake failure later.
 */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv, options: KafkaSecurityOptions): KafkaSecurity {
  const readFile = options.readFile ?? ((file: string) => readFileSync(file, 'utf8'));
  const ssl = flag(env, 'KAFKA_SSL', false);
  const security: KafkaSecurity = {};
  const files = (['KAFKA_SSL_CA_FILE', 'KAFKA_SSL_CERT_FILE', 'KAFKA_SSL_KEY_FILE'] as const).filter((name) => env[name]);
  if (!ssl) {
    for (const name of [...files, ...(env.KAFKA_SSL_REJECT_UNAUTHORIZED ? ['KAFKA_SSL_REJECT_UNAUTHORIZED'] : [])]) {
      throw new KafkaSecurityError(`${name} is set but KAFKA_SSL=true is not: set both, or neither`);
    }
  } else {
    const rejectUnauthorized = flag(env, 'KAFKA_SSL_REJECT_UNAUTHORIZED', true);
    if (!rejectUnauthorized && options.production)
      throw new KafkaSecurityError('KAFKA_SSL_REJECT_UNAUTHORIZED=false (no broker certificate check) is for dev only; refusing to start in production');
    if (Boolean(env.KAFKA_SSL_CERT_FILE) !== Boolean(env.KAFKA_SSL_KEY_FILE))
      throw new KafkaSecurityError('KAFKA_SSL_CERT_FILE and KAFKA_SSL_KEY_FILE go together (a client certificate and its key)');
    const read = (name: string) => {
      const file = env[name] as string;
      try {
        return readFile(file);
      } catch (error) {
        throw new KafkaSecurityError(`${name}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    };
    security.ssl = { rejectUnauthorized };
    // Only the CA given, not the system's too: the broker's certificate comes from the cluster's own CA.
    if (env.KAFKA_SSL_CA_FILE) security.ssl.ca = [read('KAFKA_SSL_CA_FILE')];
    if (env.KAFKA_SSL_CERT_FILE) {
      security.ssl.cert = read('KAFKA_SSL_CERT_FILE');
      security.ssl.key = read('KAFKA_SSL_KEY_FILE');
    }
  }
  const rawMechanism = env.KAFKA_SASL_MECHANISM;
  if (!rawMechanism) {
    if (env.KAFKA_SASL_USERNAME || env.KAFKA_SASL_PASSWORD)
      throw new KafkaSecurityError('KAFKA_SASL_USERNAME / KAFKA_SASL_PASSWORD are set without KAFKA_SASL_MECHANISM');
    return security;
  }
  const mechanism = rawMechanism.toLowerCase() as Mechanism;
  if (!MECHANISMS.includes(mechanism)) throw new KafkaSecurityError(`KAFKA_SASL_MECHANISM must be one of ${MECHANISMS.join(', ')}, not ${rawMechanism}`);
  if (!env.KAFKA_SASL_USERNAME) throw new KafkaSecurityError(`KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM=${mechanism}`);
  if (!env.KAFKA_SASL_PASSWORD) throw new KafkaSecurityError(`KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM=${mechanism}`);
  // PLAIN sends the password itself; SCRAM never does, but its session is still readable without TLS.
  if (mechanism === 'plain' && !ssl && options.production)
    throw new KafkaSecurityError('KAFKA_SASL_MECHANISM=plain sends the password in the clear without KAFKA_SSL=true; refusing to start in production');
  security.sasl = { mechanism, username: env.KAFKA_SASL_USERNAME, password: env.KAFKA_SASL_PASSWORD } as SASLOptions;
  return security;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') throw new KafkaSecurityError(`${name} must be true or false, not ${raw}`);
  return raw === 'true';
}
