/**
 * The chaos campaign's own infrastructure: a Kafka broker on its own ports and directory
 * (tools/infra/infra.mjs with KAFKA_DIR), a throwaway Postgres cluster, an HTTPS webhook receiver
 * and the seven apps under the dev supervisor (tools/dev/start.mjs), which restarts a killed app as
 * Kubernetes would. The shared broker and database are never touched. Everything started here is
 * stopped by close(), which is safe to call twice and after a failed start.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { healthPort, ROOT } from '../dev/stack.mjs';
import { pidFile, stopRecordedStack } from '../dev/recorded-stack.mjs';

const require = createRequire(import.meta.url);
const { ThrowawayPostgres } = require(path.join(ROOT, 'dist/libs/testing/src/throwaway-postgres.js'));
const { HttpsReceiver } = require(path.join(ROOT, 'dist/libs/testing/src/https-receiver.js'));
const { testCertificates } = require(path.join(ROOT, 'dist/libs/testing/src/test-certificates.js'));

export const APP_NAMES = ['gateway', 'messaging', 'consent', 'media', 'profile', 'webhook-dispatcher', 'chat-sim'];
const TAG = 'chaos';
const ADMIN_TOKEN = 'chaos-admin-token';
export const WEBHOOK_HOST = 'hooks.local.test';

/** Ports derive from the stack's base port: apps at base + 0..61, the rest above them. */
export function chaosPorts(base) {
  return { base, kafka: base + 80, kafkaController: base + 81, postgres: base + 82, receiver: base + 83 };
}

export class ChaosStack {
  constructor(basePort) {
    this.ports = chaosPorts(basePort);
    this.kafkaDir = mkdtempSync(path.join(tmpdir(), 'chaos-kafka-'));
    this.kafkaEnv = {
      ...process.env,
      KAFKA_DIR: this.kafkaDir,
      KAFKA_PORT: String(this.ports.kafka),
      KAFKA_CONTROLLER_PORT: String(this.ports.kafkaController),
    };
    this.databaseUrl = `postgres://postgres@127.0.0.1:${this.ports.postgres}/chaos`;
    this.publicUrl = `http://127.0.0.1:${basePort}/platform/v1`;
    this.adminUrl = `http://127.0.0.1:${basePort + 1}/admin/v1`;
    this.postgres = null;
    this.receiver = null;
    this.supervisor = null;
    this.brokerUp = false;
  }

  async start() {
    await this.startBroker();
    this.postgres = new ThrowawayPostgres(this.ports.postgres);
    this.postgres.start();
    const admin = new pg.Client({ connectionString: this.postgres.url });
    await admin.connect();
    await admin.query('create database chaos');
    await admin.end();
    const certs = testCertificates(path.join(ROOT, '.data/test-certs'));
    this.receiver = await HttpsReceiver.start({ port: this.ports.receiver, host: '127.0.0.1', certPem: certs.certPem, keyPem: certs.keyPem });
    await this.startApps(certs.caFile);
  }

  /** Starts the broker (formatted on first start; later starts reuse its data) and waits until it answers. */
  async startBroker() {
    await runInfra(['start', 'kafka'], this.kafkaEnv);
    this.brokerUp = true;
  }

  /** Stops the broker process (SIGTERM, as an orchestrator would) and waits until it has exited. */
  async stopBroker() {
    this.brokerUp = false;
    await runInfra(['stop', 'kafka'], this.kafkaEnv);
  }

  async startApps(caFile) {
    const env = {
      ...this.kafkaEnv,
      DATABASE_URL: this.databaseUrl,
      KAFKA_BROKERS: `127.0.0.1:${this.ports.kafka}`,
      PGPORT: String(this.ports.postgres),
      PG_DATABASES: 'chaos',
      ADMIN_TOKEN,
      WEBHOOK_DEV_HOSTS: `${WEBHOOK_HOST}=127.0.0.1:${this.ports.receiver}`,
      WEBHOOK_CA_FILE: caFile,
    };
    const args = ['tools/dev/start.mjs', '--port', String(this.ports.base), '--tag', TAG, '--fresh-namespace', 'chaos_', '--skip-build', '--skip-seed'];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.supervisor = child;
    this.restarts = [];
    let output = '';
    child.stderr.on('data', (chunk) => {
      // The supervisor's restart lines: kept for the report, so a restart loop is visible.
      for (const line of chunk.toString().split('\n')) if (/exited .*restarting/.test(line)) this.restarts.push({ at: Date.now(), line: line.trim() });
      output += chunk;
    });
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Business Messaging Platform is running.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before the stack was ready:\n${output.slice(-4000)}`)));
    });
  }

  /** The current pid of each app, as the supervisor records it after every restart. */
  pids() {
    return JSON.parse(readFileSync(pidFile(TAG), 'utf8')).pids;
  }

  readyUrl(app) {
    const ports = JSON.parse(readFileSync(pidFile(TAG), 'utf8')).ports;
    return `http://127.0.0.1:${healthPort(app, ports[app])}/readyz`;
  }

  async isReady(app) {
    try {
      return (await fetch(this.readyUrl(app), { signal: AbortSignal.timeout(2000) })).ok;
    } catch {
      return false;
    }
  }

  async admin(method, route, body) {
    const res = await fetch(this.adminUrl + route, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok) throw new Error(`admin ${method} ${route}: ${res.status} ${await res.text()}`);
    return res.json();
  }

  /** Stops everything this stack started, in reverse order; each step is tried whatever the others did. */
  async close() {
    const steps = [
      async () => {
        if (this.supervisor && this.supervisor.exitCode === null) {
          const exited = new Promise((resolve) => this.supervisor.once('exit', resolve));
          this.supervisor.kill('SIGTERM');
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
        }
        // Apps left by a supervisor that did not stop in time (or a start cut short).
        await stopRecordedStack(TAG);
      },
      async () => this.receiver?.close(),
      async () => this.postgres?.destroy(),
      async () => runInfra(['stop', 'kafka'], this.kafkaEnv),
      async () => rmSync(this.kafkaDir, { recursive: true, force: true }),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        console.error(`cleanup: ${error.message}`);
      }
    }
    this.supervisor = null;
    this.postgres = null;
    this.receiver = null;
  }
}

function runInfra(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'tools/infra/infra.mjs'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`infra.mjs ${args.join(' ')} failed (${code}):\n${output}`))));
  });
}
