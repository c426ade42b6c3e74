/**
 * The request/reply transport alone: RpcClient → RpcKafkaServer → reply over the real broker, with a
 * handler that answers at once, so what is measured is what each call costs the two ends (Kafka
 * records, encoding, matching the reply) and not any service's work. The server runs in a child
 * process; both report the CPU they used per call while measuring. Calls are spread over 8 apps,
 * so the server's per-app shares (ADR 0206) do not hold them back. Runs from dist/ (npm run build).
 * Usage: npm run bench:rpc [-- --seconds 15 --concurrency 50 --warmup 3]
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { ensureInfra } from '../infra/infra.mjs';
import { percentile } from './latency.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const { RpcClient, RpcKafkaServer, ensureTopics, kafkaClientConfig, rpcServerKafkaOptions, silenceKafkaJsTimeoutNegativeWarning } = require(
  path.join(ROOT, 'dist/libs/kafka/src/index.js'),
);
silenceKafkaJsTimeoutNegativeWarning();
const { rpcReplyTopic, rpcTopic } = require(path.join(ROOT, 'dist/libs/contracts/src/index.js'));

if (process.argv.includes('--serve')) await serve();
else await measureCalls();

/** The child: a server whose handler answers at once, reporting its CPU when asked. */
async function serve() {
  const server = new RpcKafkaServer(rpcServerKafkaOptions(kafkaClientConfig(`bench-rpc-server-${process.pid}`, brokers), rpcTopic('profile')), {
    maxInFlight: 64,
    commitEveryMs: 1000,
  });
  server.addHandler(rpcTopic('profile'), async (request) => ({ ok: true, result: { requestId: request.caller.requestId, payload: request.payload } }), false);
  await new Promise((resolve, reject) => server.listen((error) => (error ? reject(error) : resolve())));
  let since = process.cpuUsage();
  process.on('message', async (message) => {
    if (message === 'start') since = process.cpuUsage();
    if (message === 'cpu') process.send({ cpu: process.cpuUsage(since) });
    if (message === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
  process.send({ ready: true });
}

async function measureCalls() {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '15' }, concurrency: { type: 'string', default: '50' }, warmup: { type: 'string', default: '3' } },
  });
  await ensureInfra({ quiet: true });
  process.env.KAFKA_NAMESPACE = `rpcbench_${Date.now()}.`;
  const topics = [rpcTopic('profile'), rpcReplyTopic('profile')];
  const kafka = new Kafka({ clientId: 'bench-rpc-admin', brokers, logLevel: logLevel.NOTHING });
  await ensureTopics(
    kafka,
    topics.map((name) => ({ name, partitions: 6, config: {} })),
  );
  const server = fork(fileURLToPath(import.meta.url), ['--serve'], { env: process.env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const fromServer = (key) => new Promise((resolve) => server.on('message', (m) => m[key] !== undefined && resolve(m[key])));
  await fromServer('ready');
  const rpc = new RpcClient({ brokers, instanceId: `bench-rpc-${process.pid}`, services: ['profile'], timeoutMs: 10_000 });
  await rpc.connect();
  let n = 0;
  const run = async (ms, latencies) => {
    const end = Date.now() + ms;
    let failed = 0;
    await Promise.all(
      Array.from({ length: Number(values.concurrency) }, async () => {
        while (Date.now() < end) {
          const i = n++;
          const started = performance.now();
          try {
            await rpc.call('profile', 'profile.get', { requestId: `req_${i}`, appId: `app_${i % 8}` }, { appId: `app_${i % 8}` });
            latencies?.push(performance.now() - started);
          } catch {
            failed++;
          }
        }
      }),
    );
    return failed;
  };
  await run(Number(values.warmup) * 1000);
  const latencies = [];
  server.send('start');
  const since = process.cpuUsage();
  const started = performance.now();
  const failed = await run(Number(values.seconds) * 1000, latencies);
  const seconds = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(since);
  server.send('cpu');
  const serverCpu = await fromServer('cpu');
  const msPerCall = (cpu) => Math.round(((cpu.user + cpu.system) / 1000 / latencies.length) * 1000) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        bench: 'RPC request/reply',
        seconds: Math.round(seconds),
        concurrency: Number(values.concurrency),
        calls: latencies.length,
        callsPerSecond: Math.round(latencies.length / seconds),
        failed,
        latencyMs: { p50: Math.round(percentile(latencies, 50) * 10) / 10, p99: Math.round(percentile(latencies, 99) * 10) / 10 },
        cpuMsPerCall: { client: msPerCall(clientCpu), server: msPerCall(serverCpu) },
      },
      null,
      2,
    ),
  );
  await rpc.close();
  const exited = new Promise((resolve) => server.on('exit', resolve));
  server.send('stop');
  await exited;
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
}
