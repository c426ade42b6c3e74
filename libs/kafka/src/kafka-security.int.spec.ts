import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Kafka } from 'kafkajs';
import { createKafka } from './kafka-client';
import { kafkaSecurityFromEnv } from './kafka-security';

/**
 * The clients' TLS and SCRAM-SHA-512 settings (KAFKA_SSL_*, KAFKA_SASL_*) against a real broker with a
 * SASL_SSL listener, as production's Strimzi listener is: a broker of the test's own (tools/infra with
 * KAFKA_DIR and KAFKA_SECURE_PORT), its CA, certificate and SCRAM user made by tools/infra.
 */
const ROOT = path.resolve(__dirname, '../../..');
const BASE = Number(process.env.TEST_BASE_PORT ?? 4000) + 120;
const PORTS = { plain: BASE, controller: BASE + 1, secure: BASE + 2 };
const home = mkdtempSync(path.join(tmpdir(), 'kafka-secure-'));
const infraEnv = {
  ...process.env,
  KAFKA_DIR: home,
  KAFKA_PORT: String(PORTS.plain),
  KAFKA_CONTROLLER_PORT: String(PORTS.controller),
  KAFKA_SECURE_PORT: String(PORTS.secure),
};
const infra = (command: string) =>
  promisify(execFile)(process.execPath, [path.join(ROOT, 'tools/infra/infra.mjs'), command, 'kafka'], { cwd: ROOT, env: infraEnv, timeout: 150_000 });
const files = { ca: path.join(home, 'tls/ca.pem'), password: path.join(home, 'tls/scram-password') };
const brokers = [`127.0.0.1:${PORTS.secure}`];

/** A client made as the services make theirs: the environment read by kafkaSecurityFromEnv, in production. */
function clientFor(env: NodeJS.ProcessEnv, name: string): Kafka {
  return createKafka(
    `security-test-${name}`,
    brokers,
    { retry: { retries: 1, initialRetryTime: 100 }, connectionTimeout: 3_000 },
    kafkaSecurityFromEnv(env, { production: true }),
  );
}

const goodEnv = (): NodeJS.ProcessEnv => ({
  KAFKA_SSL: 'true',
  KAFKA_SSL_CA_FILE: files.ca,
  KAFKA_SASL_MECHANISM: 'scram-sha-512',
  KAFKA_SASL_USERNAME: 'platform',
  KAFKA_SASL_PASSWORD: readFileSync(files.password, 'utf8').trim(),
});

beforeAll(async () => {
  await infra('start');
}, 180_000);

afterAll(async () => {
  try {
    await infra('stop');
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 60_000);

describe('Kafka over SASL_SSL with SCRAM-SHA-512 (a real broker)', () => {
  it('produces with acks=all and consumes in a group, over TLS, as the configured user', async () => {
    const kafka = clientFor(goodEnv(), 'good');
    const topic = `security-test-${Date.now()}`;
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    const consumer = kafka.consumer({ groupId: `${topic}-group`, allowAutoTopicCreation: false });
    try {
      await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
      await producer.connect();
      await producer.send({
        topic,
        acks: -1,
        messages: [
          { key: 'k1', value: 'over TLS' },
          { key: 'k2', value: 'and SCRAM' },
        ],
      });
      // A broker just started loads its group coordinator a while after it serves topics; this client
      // gives up after one retry (as the refusals below need), so its consumer would crash on it for good.
      await untilCoordinatorServes(admin, `${topic}-group`);
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const received: string[] = [];
      const both = new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            received.push(String(message.value));
            if (received.length === 2) resolve();
          },
        });
      });
      await both;
      expect(received.sort()).toEqual(['and SCRAM', 'over TLS']);
      // The group's offsets were committed through the same listener.
      await consumer.stop();
      const offsets = await admin.fetchOffsets({ groupId: `${topic}-group`, topics: [topic] });
      expect(offsets[0].partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0)).toBe(2); // -1: nothing committed on that partition
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
      await admin.disconnect();
    }
  }, 90_000);

  it('refuses a wrong password', async () => {
    const producer = clientFor({ ...goodEnv(), KAFKA_SASL_PASSWORD: 'not-the-password' }, 'wrong-password').producer();
    await expect(producer.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed|Authentication failed/i);
    await producer.disconnect();
  });

  it('refuses a user the broker does not know', async () => {
    const producer = clientFor({ ...goodEnv(), KAFKA_SASL_USERNAME: 'someone-else' }, 'unknown-user').producer();
    await expect(producer.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed|Authentication failed/i);
    await producer.disconnect();
  });

  it('does not trust the broker without the cluster CA: the certificate check fails before any password is sent', async () => {
    const { KAFKA_SSL_CA_FILE: _ca, ...withoutCa } = goodEnv();
    const producer = clientFor(withoutCa, 'no-ca').producer();
    await expect(producer.connect()).rejects.toThrow(/self[- ]signed certificate|unable to (get|verify)/i);
    await producer.disconnect();
  });

  it('cannot speak to the secure listener without TLS', async () => {
    const { KAFKA_SSL: _ssl, KAFKA_SSL_CA_FILE: _ca, ...plain } = goodEnv();
    // SCRAM without TLS is refused in production by kafkaSecurityFromEnv only for PLAIN; the broker refuses the rest.
    const producer = clientFor(plain, 'no-tls').producer();
    await expect(producer.connect()).rejects.toThrow();
    await producer.disconnect();
  });
});

async function untilCoordinatorServes(admin: ReturnType<Kafka['admin']>, groupId: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await admin.describeGroups([groupId]);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
