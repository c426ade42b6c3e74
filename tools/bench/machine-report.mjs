/** What the benches report of the machine: CPU per process group, time waiting for a core, the loop score, database activity. */
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { benchEnv } from './bench-stack.mjs';

/** Counts a process the bench started beside the stack (a CLI under test) as its own group. */
export function trackProcess(pid, group) {
  stackPids.set(pid, group);
}
/** cpuLoopScore() of this run, taken before the stack started. */
let machineScore = null;
/** Process ids of the stack's apps (and processes a bench adds), by group, for CPU per process group. */
let stackPids = new Map();

/** Measures the machine's loop score once, before the stack starts, for every report of the run. */
export function measureMachineScore() {
  machineScore = cpuLoopScore();
}

export function setStackPids(pids) {
  stackPids = pids;
}

/**
 * CPU seconds used so far by each process of the stack's apps, Kafka, S3Proxy, Postgres and the
 * bench itself, by pid: `{ group, seconds, waiting }`. `waiting` is how long the process's main
 * thread (a Node app's event loop, a Postgres backend) has been ready to run but waiting for a core
 * (/proc/PID/schedstat), in seconds: on a saturated machine that, not the work, is much of a send's time.
 */
export function cpuSnapshot() {
  const ticksPerSecond = 100;
  const processes = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let stat;
    let cmdline;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
    const group =
      stackPids.get(pid) ??
      (pid === process.pid
        ? 'bench client'
        : /kafka\.Kafka|kafka-server|kafka_/.test(cmdline)
          ? 'kafka'
          : /s3proxy/i.test(cmdline)
            ? 's3proxy'
            : stat.includes('(postgres)')
              ? 'postgres'
              : null);
    if (group) processes.set(pid, { group, seconds, waiting: waitingForCore(pid) });
  }
  return processes;
}

/** Seconds the process's main thread has spent runnable on a run queue (0 where the kernel keeps no schedstats). */
export function waitingForCore(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9 || 0;
  } catch {
    return 0;
  }
}

/**
 * How fast this machine runs plain JavaScript right now: rounds of a fixed floating-point loop per
 * second on one thread, taken before the stack starts (only the idle broker runs). Commit 306c515
 * gave 495-696 sends/s one day and 345-391 the next; this puts a number on the day beside the
 * figures (3 500-3 650 on 2026-11-23).
 */
export function cpuLoopScore(ms = 2000) {
  const started = performance.now();
  let rounds = 0;
  let sink = 0;
  while (performance.now() - started < ms) {
    for (let i = 0; i < 100_000; i++) sink += Math.sqrt(i);
    rounds += 1;
  }
  return sink > 0 ? Math.round((rounds * 1000) / ms) : 0;
}

/** The whole machine's CPU time so far (/proc/stat): busy and stolen by the hypervisor, in ticks. */
export function machineTicks() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/** The machine during a measurement: its loop score before the stack started, and the share of its CPU time that was busy and stolen. */
export function machineReport(before, after) {
  const busy = after.busy - before.busy;
  const steal = after.steal - before.steal;
  const total = busy + steal + (after.idle - before.idle);
  const share = (ticks) => (total > 0 ? Math.round((1000 * ticks) / total) / 10 : null);
  return { cpuLoopScore: machineScore, busyPercent: share(busy), stolenPercent: share(steal) };
}

/** Commits in the bench database and rows written per schema so far (Postgres statistics, flushed about once a second). */
export async function databaseActivity() {
  const client = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
  await client.connect();
  try {
    // Statistics reach the views when a backend reports them; a short pause lets the last ones in.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const [{ commits }] = (await client.query(`select xact_commit::bigint as commits from pg_stat_database where datname = current_database()`)).rows;
    const writes = (await client.query(`select schemaname, sum(n_tup_ins + n_tup_upd + n_tup_del)::bigint as n from pg_stat_user_tables group by schemaname`))
      .rows;
    return { commits: Number(commits), writes: Object.fromEntries(writes.map((r) => [r.schemaname, Number(r.n)])) };
  } finally {
    await client.end();
  }
}

/**
 * Starts watching the machine and the stack's processes; the function it returns reports, for the
 * time since, the machine (loop score, busy and stolen shares), the cores each group used and how
 * long its main threads waited for a core (seconds per second).
 */
export function watchMachine() {
  const cpuBefore = cpuSnapshot();
  const machineBefore = machineTicks();
  const started = performance.now();
  return () => {
    const cpuAfter = cpuSnapshot();
    const seconds = (performance.now() - started) / 1000;
    return {
      machine: machineReport(machineBefore, machineTicks()),
      coresUsed: coresUsed(cpuBefore, cpuAfter, seconds),
      mainThreadsWaitingForCore: coresUsed(cpuBefore, cpuAfter, seconds, 'waiting'),
    };
  };
}

/**
 * Cores used per process group between two snapshots, busiest first. Counted per process: a
 * Postgres backend that ends between the snapshots (a pool's idle connection closed, a parallel
 * worker) would otherwise take its whole life's CPU off its group's total (Postgres showed 0.01
 * cores in later `--windows`). What such a process used before it ended is not counted. `field`
 * 'waiting' sums the main threads' waits for a core the same way.
 */
export function coresUsed(before, after, seconds, field = 'seconds') {
  const totals = {};
  for (const [pid, { group, [field]: used }] of after) {
    const earlier = before.get(pid);
    totals[group] = (totals[group] ?? 0) + used - (earlier?.group === group ? earlier[field] : 0);
  }
  return Object.fromEntries(
    Object.entries(totals)
      .map(([group, used]) => /** @type {[string, number]} */ ([group, Math.round((used / seconds) * 100) / 100]))
      .filter(([, cores]) => cores > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}
