/**
 * Starts and stops the apps as child processes from dist/, each with its own port, and waits
 * until every one answers /readyz. Shared by `npm start` and the integration test setup.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** App name → port offset from the base port. An app with a second port (below) has it at its port + 1. */
export const APPS = {
  'chat-sim': 60,
  profile: 40,
  messaging: 10,
  consent: 20,
  media: 30,
  'webhook-dispatcher': 50,
  console: 2,
  gateway: 0,
};

/**
 * The variable of an app's second port, given its port + 1: the gateway's admin API, the console's
 * internal port. There, not on the app's port, they answer /healthz, /readyz and /metrics.
 */
export const SECOND_PORTS = { gateway: 'ADMIN_PORT', console: 'INTERNAL_PORT' };

export function stackPorts(basePort) {
  return Object.fromEntries(Object.entries(APPS).map(([app, offset]) => [app, basePort + offset]));
}

/** Where an app on `port` answers /healthz, /readyz and /metrics. */
export function healthPort(app, port) {
  return SECOND_PORTS[app] ? port + 1 : port;
}

function readyUrl(app, ports) {
  return `http://127.0.0.1:${healthPort(app, ports[app])}/readyz`;
}

/** Where the stack runner writes an app's log lines unless told otherwise. */
export const LOG_DIR = path.join(ROOT, '.data/logs');

/** The log file of one app of a stack (`<tag>-<app>.log`): its stdout and stderr, afresh at each start. */
export function appLogFile(tag, app, logDir = LOG_DIR) {
  return path.join(logDir, `${tag}-${app}.log`);
}

/** Every app starts through it: the runtime settings (heap, malloc arenas) the image uses too. */
export const APP_LAUNCHER = path.join(ROOT, 'deploy/start-app.sh');

/** `append`: a restart adds to the log, so the lines before a crash stay readable. */
export function spawnApp(app, { port, env, logDir, tag, append = false }) {
  mkdirSync(logDir, { recursive: true });
  // The app writes its lines straight into its log file: relayed through a pipe, every line (one per
  // request at the gateway) cost this process a wake-up, a read and a write besides the app's own.
  // Each start begins the file afresh: appended to, a day of benches grew the gateway's past 100 MB.
  const log = openSync(appLogFile(tag, app, logDir), append ? 'a' : 'w');
  // STACK_NODE_ARGS: extra Node flags for every app, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile a
  // benchmark; they come after the launcher's own, so they win. The launcher execs node: the pid stays the app's.
  const extra = (process.env.STACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn('/bin/sh', [APP_LAUNCHER, process.execPath, ...extra, path.join(ROOT, `dist/apps/${app}/src/main.js`)], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), ...(SECOND_PORTS[app] ? { [SECOND_PORTS[app]]: String(port + 1) } : {}) },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  return child;
}

export async function waitReady(url, timeoutMs, child) {
  const deadline = Date.now() + timeoutMs;
  // The last answer says which check held the app back (a consumer, Postgres, Kafka) when it never gets ready.
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${url}: the process exited with code ${child.exitCode}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
      last = `${res.status} ${(await res.text()).slice(0, 2000)}`;
    } catch (error) {
      // fetch's own message is "fetch failed"; the cause says why (refused, or a port fetch never calls, such as 5060).
      const cause = /** @type {{ cause?: { message?: string } }} */ (error).cause?.message;
      last = `no answer (${/** @type {Error} */ (error).message}${cause ? `: ${cause}` : ''})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs / 1000} s; its last answer: ${last}`);
}

/**
 * Starts every app (`appEnv[app]` adds to `env` for one app); returns the children and their ports. Apps start in parallel; readiness is
 * awaited for all. On failure, everything started is stopped and the log tails are printed. `onSpawned`
 * gets the children and ports before readiness is awaited (to record their pids).
 */
/**
 * @param {{ basePort: number, env: NodeJS.ProcessEnv, appEnv?: Record<string, NodeJS.ProcessEnv>, tag: string, logDir?: string, timeoutMs?: number,
 *   onSpawned?: (children: Record<string, import('node:child_process').ChildProcess>, ports: Record<string, number>) => void }} options
 */
export async function startStack({ basePort, env, appEnv = {}, tag, logDir = LOG_DIR, timeoutMs = 120_000, onSpawned = () => {} }) {
  const ports = stackPorts(basePort);
  await createStackTopics(env);
  /** @type {Record<string, import('node:child_process').ChildProcess>} */
  const children = {};
  for (const app of Object.keys(APPS)) children[app] = spawnApp(app, { port: ports[app], env: { ...env, ...appEnv[app] }, logDir, tag });
  onSpawned(children, ports);
  try {
    // Every app's outcome, so that a failure names each app that was not ready, not just the first.
    const outcomes = await Promise.allSettled(Object.keys(APPS).map((app) => waitReady(readyUrl(app, ports), timeoutMs, children[app])));
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [/** @type {Error} */ (outcome.reason).message] : []));
    if (failures.length > 0) throw new Error(failures.join('\n'));
  } catch (error) {
    await stopChildren(Object.values(children));
    // Warnings, errors and crash traces: the request lines of a busy app would hide them.
    const quiet = (/** @type {string} */ line) => !line.includes('"level":"info"') && !line.includes('"level":"debug"');
    const tails = Object.keys(APPS)
      .map((app) => {
        const file = appLogFile(tag, app, logDir);
        const lines = existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(quiet).slice(-15).join('\n') : '(no log)';
        return `--- ${app} (${file})\n${lines}`;
      })
      .join('\n');
    throw new Error(`${/** @type {Error} */ (error).message}\n${tails}`);
  }
  return { children, ports };
}

/** Every topic of the stack's namespace, with leaders, before any app starts (tools/dev/create-stack-topics.cjs says why). */
async function createStackTopics(env) {
  const script = path.join(ROOT, 'tools/dev/create-stack-topics.cjs');
  const { code, stderr } = await new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', (error) => resolve({ code: 1, stderr: String(error) }));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
  if (code !== 0) throw new Error(stderr.trim() || `creating the stack's topics exited with ${code}`);
}

export async function stopChildren(children) {
  await Promise.all(
    children.map(
      (child) =>
        new Promise((/** @type {(value?: void) => void} */ resolve) => {
          if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
