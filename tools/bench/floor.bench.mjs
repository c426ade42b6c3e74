/**
 * The distance to the floor: the least a platform must do to accept a message durably
 * (floor-server.mjs: node:http, the JSON body parsed, one kafkajs produce with acks=all to a
 * 6-partition topic, 202) against POST /messages through the whole stack (messages.bench.mjs), on
 * the same broker, loaded the same way, in the same sitting; prints both and their ratio. Then
 * the accept path alone (`bench:messages -- --accept-path-only`: the chat simulator and the webhook
 * dispatcher stopped while measuring) and its ratio, which says how much of the distance is the
 * work a send causes after its 202.
 * Closed loop by default (50 connections, each sending when its last answer came: the most each
 * takes); with --rate R both at an even R per second (the p99s at that load).
 * Usage: npm run bench:floor [-- --seconds 20 --connections 50 --rate 0 --users 200]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import pg from 'pg';
import { ensureInfra } from '../infra/infra.mjs';
import { measure, paced, postJson, trackProcess } from './bench-stack.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '50' },
    rate: { type: 'string', default: '0' },
    users: { type: 'string', default: '200' },
  },
});
const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
const port = Number(process.env.BENCH_FLOOR_PORT ?? 5590);
const rate = Number(values.rate);
const seconds = Number(values.seconds);

await ensureInfra({ quiet: true });
// The machine report reads the bench database's activity; bench:messages makes it afresh later.
const pgAdmin = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
await pgAdmin.connect();
const benchDb = process.env.BENCH_DATABASE ?? 'platform_bench';
if ((await pgAdmin.query('select 1 from pg_database where datname = $1', [benchDb])).rowCount === 0) await pgAdmin.query(`create database ${benchDb}`);
await pgAdmin.end();
const topic = `bench-floor-${Date.now()}`;
const admin = new Kafka({ clientId: 'bench-floor-admin', brokers: brokers.split(','), logLevel: logLevel.NOTHING }).admin();
await admin.connect();
await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 6, replicationFactor: -1 }] });

const floor = await measureFloor();
await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
await admin.disconnect();
const platform = await measurePlatform();
const acceptPath = await measurePlatform(['--accept-path-only']);

const throughput = (r) => r.requestsPerSecond ?? r.answeredPerSecond;
const summary = {
  bench: rate > 0 ? `floor vs POST /messages at ${rate}/s` : 'floor vs POST /messages, closed loop',
  floor: { perSecond: throughput(floor), latencyMs: floor.latencyMs, failed: floor.failed, coresUsed: floor.coresUsed },
  platform: { perSecond: throughput(platform), latencyMs: platform.latencyMs, failed: platform.failed, coresUsed: platform.coresUsed },
  acceptPathOnly: { perSecond: throughput(acceptPath), latencyMs: acceptPath.latencyMs, failed: acceptPath.failed, coresUsed: acceptPath.coresUsed },
  ratio: rate > 0 ? null : Number((throughput(platform) / throughput(floor)).toFixed(3)),
  acceptPathRatio: rate > 0 ? null : Number((throughput(acceptPath) / throughput(floor)).toFixed(3)),
};
console.log(JSON.stringify(summary, null, 2));

/**
 * The floor server as a process of its own, loaded like the platform's gateway.
 * @returns {Promise<any>} the report of `measure` or `paced`
 */
async function measureFloor() {
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/bench/floor-server.mjs'), String(port), topic, brokers], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`floor server exited with ${code}`)));
  });
  trackProcess(child.pid, 'floor');
  const url = `http://127.0.0.1:${port}/messages`;
  const body = (i) =>
    JSON.stringify({ to: { appUserId: `u_${i % Number(values.users)}` }, type: 'text', text: `bench message ${i}`, clientReference: `b-${i}` });
  try {
    if (rate > 0) {
      return await paced('floor at an even rate', {
        rate,
        seconds,
        metricsUrl: null,
        send: (i) => postJson(url, { authorization: 'Bearer floor', 'idempotency-key': randomUUID() }, body(i)),
      });
    }
    let n = 0;
    return await measure('floor: node:http + one acks=all produce', {
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      connections: Number(values.connections),
      duration: seconds,
      requests: [
        { setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: 'Bearer floor', 'idempotency-key': randomUUID() }, body: body(n++) }) },
      ],
    });
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/**
 * bench:messages with the same load, right after the floor; its last report.
 * @param {string[]} [more] further bench:messages arguments
 * @returns {Promise<any>}
 */
async function measurePlatform(more = []) {
  const args = [
    ...more,
    '--seconds',
    String(seconds),
    '--connections',
    values.connections,
    '--users',
    values.users,
    ...(rate > 0 ? ['--rate', String(rate)] : []),
  ];
  const child = spawn(process.execPath, [path.join(ROOT, 'tools/bench/messages.bench.mjs'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    process.stdout.write(chunk);
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench:messages exited with ${code}`);
  const reports = [...out.matchAll(/^\{\n[\s\S]*?^\}$/gm)].map((m) => JSON.parse(m[0])).filter((r) => String(r.bench).startsWith('POST /messages'));
  if (reports.length === 0) throw new Error('bench:messages printed no report');
  return reports.at(-1);
}
