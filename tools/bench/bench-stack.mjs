// Over 300 lines because every benchmark shares this one harness (database, ports, namespace, stack,
// admin client, report); a piece of it alone would serve no bench.
/**
 * Shared harness of the benchmarks: its own database, ports and Kafka namespace on the local
 * infrastructure, a started stack, an admin client, and one JSON report per run. The machine report
 * (CPU per process group, loop score) is machine-report.mjs.
 * Over 300 lines (about 350): the stack's start (replicas included), the seeding helpers and the
 * measured runs share one stack and its report; autocannon's runs are autocannon-runs.mjs.
 */
import { writeFileSync } from 'node:fs';
import pg from 'pg';
import { ensureInfra } from '../infra/infra.mjs';
import { freshKafkaNamespace } from '../infra/kafka-namespace.mjs';
import { appLogFile, stackPorts, startStack, stopChildren } from '../dev/stack.mjs';
import { databaseActivity, measureMachineScore, setStackPids, watchMachine } from './machine-report.mjs';
import { atEvenPace } from './paced-client.mjs';
import { spreadOver } from './autocannon-runs.mjs';
import { percentile } from './latency.mjs';
import { startReplicas } from './replicas.mjs';
import { requestStages } from './request-stages.mjs';

// The benches count their own processes and watch the machine through the harness.
export { trackProcess, watchMachine } from './machine-report.mjs';
export { atEvenPace, postJson } from './paced-client.mjs';

// Not 5000: its chat-sim port 5060 is on fetch's list of blocked ports (SIP). BENCH_BASE_PORT and
// BENCH_DATABASE move a bench beside another one running on the same machine.
export const BENCH_BASE_PORT = Number(process.env.BENCH_BASE_PORT ?? 5500);
const DB = process.env.BENCH_DATABASE ?? 'platform_bench';
const ADMIN_TOKEN = 'bench-admin-token';
/** The bench stack's processes and log files are tagged so (`bench-<app>.log`). */
const BENCH_TAG = 'bench';

export const benchEnv = {
  NODE_ENV: 'production-like',
  DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${DB}`,
  KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:9092',
  ADMIN_TOKEN,
  KAFKA_NAMESPACE: 'bench.',
  // The benches measure the pipeline, not the per-app bucket.
  RATE_LIMIT_RPS: '1000000',
  RATE_LIMIT_BURST: '1000000',
};

/**
 * Runs `body` against a fresh stack and stops it afterwards, whatever happens. `replicas` above 1
 * adds that many instances in all of the gateway, messaging and webhook-dispatcher (replicas.mjs).
 * @param {(stack: any) => Promise<any>} body
 * @param {{ replicas?: number }} [options]
 */
export async function withBenchStack(body, { replicas = 1 } = {}) {
  await ensureInfra({ quiet: true });
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  await client.query(`drop database if exists ${DB} with (force)`);
  await client.query(`create database ${DB}`);
  await client.end();
  // Named after the database, so a bench beside another (BENCH_DATABASE) never deletes the other's topics.
  benchEnv.KAFKA_NAMESPACE = await freshKafkaNamespace(`${DB}_`);
  measureMachineScore();
  // BENCH_REQUEST_STAGES=1: messaging logs each call it handles, so the paced bench can split every send into its hops.
  const appEnv = process.env.BENCH_REQUEST_STAGES ? { messaging: { LOG_LEVEL: 'debug' } } : {};
  const { children } = await startStack({ basePort: BENCH_BASE_PORT, env: benchEnv, appEnv, tag: BENCH_TAG });
  const pids = new Map(Object.entries(children).map(([app, child]) => [child.pid, app]));
  setStackPids(pids);
  /** @type {Awaited<ReturnType<typeof startReplicas>> | null} */
  let extra = null;
  /** @type {Set<number>} */
  const frozen = new Set();
  /**
   * Stops (SIGSTOP) every process of the named apps until the returned function resumes them: a
   * diagnostic, to see what the rest of the stack does without their share of the cores. Their
   * Kafka input waits for them; they catch up once resumed.
   * @param {string[]} apps
   */
  const freeze = (apps) => {
    const stopped = [...pids].filter(([, app]) => apps.includes(app)).map(([pid]) => pid);
    for (const pid of stopped) {
      process.kill(pid, 'SIGSTOP');
      frozen.add(pid);
    }
    return () => {
      for (const pid of stopped) {
        process.kill(pid, 'SIGCONT');
        frozen.delete(pid);
      }
    };
  };
  try {
    if (replicas > 1) {
      extra = await startReplicas({ basePort: BENCH_BASE_PORT, count: replicas, env: benchEnv, tag: BENCH_TAG });
      for (const { app, child } of extra.started) pids.set(child.pid, app);
      setStackPids(pids);
    }
    return await body({
      replicas: extra ?? {
        publicUrls: [`http://127.0.0.1:${BENCH_BASE_PORT}/platform/v1`],
        messagingMetricsUrls: [`http://127.0.0.1:${BENCH_BASE_PORT + 10}/metrics`],
      },
      publicUrl: `http://127.0.0.1:${BENCH_BASE_PORT}/platform/v1`,
      adminMetricsUrl: `http://127.0.0.1:${BENCH_BASE_PORT + 1}/metrics`,
      admin: adminClient(`http://127.0.0.1:${BENCH_BASE_PORT + 1}/admin/v1`),
      freeze,
    });
  } finally {
    for (const pid of frozen) process.kill(pid, 'SIGCONT');
    await stopChildren([...Object.values(children), ...(extra?.started.map((s) => s.child) ?? [])]);
  }
}

function adminClient(base) {
  return async (method, path, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
}

/** An org, a sandbox app and a key: what every bench needs first. */
export async function seedApp(admin, name) {
  const org = await admin('POST', '/orgs', { name, allowsExternalBusinesses: true });
  const app = await admin('POST', '/apps', { orgId: org.id, handle: `${name.toLowerCase()}-${Date.now()}`, displayName: name });
  const key = await admin('POST', `/apps/${app.id}/keys`, { environment: 'sandbox' });
  return { orgId: org.id, appId: app.id, key: key.key };
}

/** Runs `fn` over items with at most `concurrency` in flight. */
export async function inParallel(items, concurrency, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i], i);
      }
    }),
  );
  return results;
}

/**
 * Open loop at an even pace: request i is due at start + i/rate whatever the earlier ones take, and
 * its latency counts from when it was due (a late client does not hide a slow server). This is the
 * load of many independent callers; autocannon's `overallRate` instead fires each second's budget
 * at once, which the services meet with large batches. `send(i)` makes request i and resolves
 * with the response. A warm-up of `warmupSeconds` at the same pace comes first: a freshly started
 * stack answers its first seconds at load about twice as slowly (V8 and the broker's JIT, statements
 * being prepared for each batch size on each connection; seen per half second with
 * BENCH_LATENCY_CSV), and a sustained figure should not depend on how long ago the stack started.
 * The warm-up's own latency is in the report. With `windows` above 1 the measurement is repeated
 * that many times on the same stack, one report each, then a summary of every window's p50 and p99:
 * runs of one commit vary by a factor of two or more on this machine, and a stack's start and
 * seeding cost more than a window. Returns the last printed report.
 */
export async function paced(name, { rate, seconds, send, metricsUrl, warmupSeconds = 10, windows = 1 }, extra = {}) {
  const run = async (count, offset) => {
    const latencies = [];
    // BENCH_LATENCY_CSV=file keeps every request's due time and latency (ms), to see when slow answers came;
    // the due time also as epoch ms, to set against samplers of other processes (pg_stat_activity, /proc).
    const timeline = process.env.BENCH_LATENCY_CSV ? [] : null;
    let failed = 0;
    let firstFailure = null;
    const begin = performance.now();
    await atEvenPace(rate, count, (i, due) =>
      send(offset + i).then(
        async (res) => {
          const body = await res.text();
          latencies.push(performance.now() - due);
          timeline?.push(`${Math.round(due - begin)},${Math.round(performance.now() - due)},${Math.round(performance.timeOrigin + due)}`);
          if (!res.ok) {
            failed += 1;
            firstFailure ??= `${res.status} ${body.slice(0, 200)}`;
          }
        },
        (error) => {
          failed += 1;
          firstFailure ??= String(error?.message ?? error);
        },
      ),
    );
    return { latencies: latencies.sort((a, b) => a - b), timeline, failed, firstFailure, seconds: (performance.now() - begin) / 1000 };
  };
  const warmup = await run(Math.round(rate * warmupSeconds), 1_000_000_000);
  const reports = [];
  for (let window = 0; window < windows; window++) reports.push(await measureWindow(window));
  if (windows > 1) {
    const summary = {
      bench: name,
      offeredPerSecond: rate,
      seconds,
      windows,
      p50Ms: reports.map((r) => r.latencyMs.p50),
      p99Ms: reports.map((r) => r.latencyMs.p99),
      failed: reports.reduce((sum, r) => sum + r.failed, 0),
    };
    console.log(JSON.stringify(summary, null, 2));
    return summary;
  }
  return reports[0];

  async function measureWindow(window) {
    const dbBefore = await databaseActivity();
    const stagesBefore = await stageHistograms(metricsUrl);
    const measuredFrom = Date.now();
    const watched = watchMachine();
    const result = await run(rate * seconds, window * rate * seconds);
    const { machine, coresUsed: cpu, mainThreadsWaitingForCore: waiting } = watched();
    const measuredTo = Date.now();
    const stagesAfter = await stageHistograms(metricsUrl);
    const dbAfter = await databaseActivity();
    if (result.timeline) writeFileSync(process.env.BENCH_LATENCY_CSV, `dueMs,latencyMs,dueEpochMs\n${result.timeline.join('\n')}\n`);
    const n = result.latencies.length;
    const at = (p) => Math.round(percentile(result.latencies, p));
    const report = {
      bench: name,
      offeredPerSecond: rate,
      seconds,
      requests: n,
      answeredPerSecond: Math.round(n / result.seconds),
      latencyMs: { p50: at(50), p90: at(90), p99: at(99), max: Math.round(result.latencies[n - 1]) },
      warmup: { seconds: warmupSeconds, failed: warmup.failed, latencyMs: { p50: percentile(warmup.latencies, 50), p99: percentile(warmup.latencies, 99) } },
      failed: result.failed,
      firstFailure: result.firstFailure,
      machine,
      coresUsed: cpu,
      // Seconds per second the group's main threads were ready but waiting for one of the two cores.
      mainThreadsWaitingForCore: waiting,
      postgresPerRequest: postgresPerRequest(dbBefore, dbAfter, n),
      gatewayStagesMeanMs: stageMeans(stagesBefore?.gateway, stagesAfter?.gateway),
      messagingStagesMeanMs: stageMeans(stagesBefore?.messaging, stagesAfter?.messaging),
      gcPauses: gcPauseReport(stagesBefore?.gc, stagesAfter?.gc, result.seconds),
      ...(process.env.BENCH_REQUEST_STAGES
        ? { requestStagesMs: requestStages(appLogFile(BENCH_TAG, 'gateway'), appLogFile(BENCH_TAG, 'messaging'), measuredFrom, measuredTo) }
        : {}),
      ...extra,
      ...(windows > 1 ? { window: window + 1 } : {}),
    };
    console.log(JSON.stringify(report, null, 2));
    return report;
  }
}

/**
 * Sums and counts of the stage histograms: the gateway's call to messaging and messaging's side of that call (from the gateway's produce to the start of
 * handling, and the handling), read from the gateway's admin port and messaging's port.
 */
async function stageHistograms(metricsUrl) {
  if (!metricsUrl) return null;
  const messagingUrl = new URL(metricsUrl);
  messagingUrl.port = String(stackPorts(BENCH_BASE_PORT).messaging);
  const [gatewayText, messagingText] = await Promise.all([metricsUrl, messagingUrl].map(async (url) => (await fetch(url)).text()));
  const read = (text, series) => Number(new RegExp(`^${series} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const stage = (text, name, labels) => ({ sum: read(text, `${name}_sum\\{${labels}\\}`), count: read(text, `${name}_count\\{${labels}\\}`) });
  return {
    gateway: {
      send: stage(gatewayText, 'rpc_client_duration_seconds', 'service="gateway",target="messaging",op="messages.send",outcome="ok"'),
    },
    messaging: {
      wait: stage(messagingText, 'rpc_server_wait_seconds', 'service="messaging",op="messages.send"'),
      handle: stage(messagingText, 'rpc_server_duration_seconds', 'service="messaging",op="messages.send",outcome="ok"'),
    },
    gc: { gateway: gcPauses(gatewayText), messaging: gcPauses(messagingText) },
  };
}

/** prom-client's `nodejs_gc_duration_seconds` by kind (minor: scavenges, major: mark-compacts, incremental marking steps). */
function gcPauses(text) {
  const kinds = {};
  for (const [, part, kind, value] of text.matchAll(/^nodejs_gc_duration_seconds_(sum|count)\{[^}]*kind="(\w+)"[^}]*\} (\S+)$/gm)) {
    kinds[kind] ??= { sum: 0, count: 0 };
    kinds[kind][part] += Number(value);
  }
  return kinds;
}

/**
 * The pauses each service's event loop took for garbage collection between two readings: how many a
 * second and their mean, by kind. A scavenge in the gateway or messaging stops every send there for
 * its length, and the slowest sends of a window line up with them
 * (docs/performance-history.md, "Memory and garbage collection").
 */
function gcPauseReport(before, after, seconds) {
  if (!before || !after) return undefined;
  return Object.fromEntries(
    Object.entries(after).map(([service, kinds]) => {
      const meanMs = stageMeans(before[service], kinds);
      const pauses = Object.entries(kinds).map(([kind, { count }]) => /** @type {[string, number]} */ ([kind, count - (before[service][kind]?.count ?? 0)]));
      return [
        service,
        Object.fromEntries(
          pauses.filter(([, n]) => n > 0).map(([kind, n]) => [kind, { perSecond: Math.round((n / seconds) * 100) / 100, meanMs: meanMs[kind] }]),
        ),
      ];
    }),
  );
}

/** Mean milliseconds per stage between two readings of one service's stage histograms (a stage first seen in `after` counts from zero). */
function stageMeans(before, after) {
  if (!before || !after) return undefined;
  return Object.fromEntries(
    Object.keys(after).map((k) => [
      k,
      Math.round(((after[k].sum - (before[k]?.sum ?? 0)) / Math.max(1, after[k].count - (before[k]?.count ?? 0))) * 10000) / 10,
    ]),
  );
}

/** Commits and row writes per schema per request between two databaseActivity() readings. */
function postgresPerRequest(before, after, requests) {
  const perRequest = (x) => Math.round((x / Math.max(1, requests)) * 10) / 10;
  return {
    commits: perRequest(after.commits - before.commits),
    rowWrites: Object.fromEntries(
      Object.keys(after.writes)
        .map((schema) => /** @type {[string, number]} */ ([schema, perRequest(after.writes[schema] - (before.writes[schema] ?? 0))]))
        .filter(([, x]) => x > 0),
    ),
  };
}

/**
 * A short warm-up, then the measured autocannon run; returns the report printed as JSON. With `urls`
 * (several gateways) the connections are spread evenly over them, one autocannon each, and the
 * latency percentiles come from every response's time. `onResponse` sees every answer's status,
 * the warm-up's included.
 * @param {string} name
 * @param {any} options autocannon's options, plus `urls?: string[]` and `onResponse?: (status: number) => void`
 * @param {Record<string, unknown>} [extra]
 */
export async function measure(name, options, extra = {}) {
  const { urls = [options.url], onResponse = () => {}, ...autocannonOptions } = options;
  await spreadOver(urls, { ...autocannonOptions, connections: Math.min(10, options.connections), duration: 3 }, onResponse);
  const dbBefore = await databaseActivity();
  const watched = watchMachine();
  const result = await spreadOver(urls, autocannonOptions, onResponse);
  const { machine, coresUsed: cpu } = watched();
  const dbAfter = await databaseActivity();
  const report = {
    bench: name,
    seconds: options.duration,
    connections: options.connections,
    ...(urls.length > 1 ? { gateways: urls.length } : {}),
    requests: result.requests,
    requestsPerSecond: result.requestsPerSecond,
    latencyMs: result.latencyMs,
    failed: result.failed,
    machine,
    coresUsed: cpu,
    postgresPerRequest: postgresPerRequest(dbBefore, dbAfter, result.requests),
    ...extra,
  };
  console.log(JSON.stringify(report, null, 2));
  return report;
}

/**
 * Stores `count` message.status public events of `appId` in the dispatcher's table, in the caller's
 * transaction (`db` a pg client): ids `evt_<tag><n>` padded to 30 characters, n from 1.
 */
export async function seedPublicEvents(db, { appId, tag, count, now }) {
  const id = (i) => `evt_${tag}${String(i).padStart(26 - tag.length, '0')}`;
  const payload = (i) =>
    JSON.stringify({
      id: id(i),
      type: 'message.status',
      apiVersion: '2026-10-01',
      created: Math.floor(now / 1000),
      appId,
      data: { id: `msg_${i}`, appUserId: 'u_bench', status: 'sent', timestamp: now.toISOString() },
    });
  await db.query(
    `insert into webhook_dispatcher.public_events (event_id, app_id, type, payload, created_at)
     select 'evt_' || $4 || lpad(i::text, 26 - length($4), '0'), $1, 'message.status', p, $2 from unnest($3::text[]) with ordinality as t(p, i)`,
    [appId, now, Array.from({ length: count }, (_, i) => payload(i + 1)), tag],
  );
}
