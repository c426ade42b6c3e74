/** Connections the commands use: Postgres (admin role), Kafka admin, the gateway admin API. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import kafkajs from 'kafkajs';
import pg from 'pg';
import { silenceKafkaJsTimeoutNegativeWarning } from '../../infra/kafkajs-warnings.mjs';
import { CliError } from './cli.mjs';

export async function withDatabase(config, body) {
  const client = new pg.Client({ connectionString: config.databaseUrl, application_name: 'platformctl' });
  try {
    await client.connect();
  } catch (error) {
    throw new CliError(`cannot connect to Postgres (${redact(config.databaseUrl)}): ${error.message}`);
  }
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const KAFKA_SECURITY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/libs/kafka/src/kafka-security.js');

/** kafkajs options of platformctl's clients: the apps' own KAFKA_SSL_* / KAFKA_SASL_* mapping, from the build. */
export function kafkaClientOptions(config, env = process.env) {
  const options = { clientId: 'platformctl', brokers: config.kafkaBrokers, logLevel: kafkajs.logLevel.NOTHING, retry: { retries: 3 } };
  // Plaintext needs no build (most dev use); any TLS or SASL setting does.
  if (!Object.keys(env).some((name) => /^KAFKA_S(SL|ASL)_?/.test(name) && env[name])) return options;
  if (!existsSync(KAFKA_SECURITY)) throw new CliError('KAFKA_SSL / KAFKA_SASL settings need the build: run `npm run build` first');
  const { kafkaSecurityFromEnv } = createRequire(import.meta.url)(KAFKA_SECURITY);
  try {
    return { ...options, ...kafkaSecurityFromEnv(env, { production: env.NODE_ENV === 'production' }) };
  } catch (error) {
    throw new CliError(error.message);
  }
}

export async function withKafkaAdmin(config, body) {
  silenceKafkaJsTimeoutNegativeWarning();
  const kafka = new kafkajs.Kafka(kafkaClientOptions(config));
  const admin = kafka.admin();
  try {
    await admin.connect();
  } catch (error) {
    throw new CliError(`cannot connect to Kafka (${config.kafkaBrokers.join(',')}): ${error.message}`);
  }
  try {
    return await body(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Calls the admin API; answers { status, body } and throws only when it cannot be reached. */
export async function adminCall(config, method, path, body) {
  let res;
  try {
    res = await fetch(config.adminUrl + path, {
      method,
      headers: { authorization: `Bearer ${config.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new CliError(`cannot reach the admin API at ${config.adminUrl}: ${error.cause?.message ?? error.message}`);
  }
  const text = await res.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, body: json };
}

/** An admin call that must succeed (2xx); anything else is a failure naming the API's error. */
export async function adminRequire(config, method, path, body) {
  const res = await adminCall(config, method, path, body);
  if (res.status >= 200 && res.status < 300) return res.body;
  const error = res.body?.error;
  throw new CliError(`${method} ${path} answered ${res.status}${error ? ` ${error.code}: ${error.message}` : `: ${JSON.stringify(res.body)}`}`);
}

function redact(url) {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}
