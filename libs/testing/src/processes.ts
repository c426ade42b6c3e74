import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

/** Where replacements of stack apps are recorded by app, beside TEST_EXTRA_PIDS_FILE. */
function replacementsFile(): string | null {
  const file = process.env.TEST_EXTRA_PIDS_FILE;
  return file ? file.replace(/\.json$/, '') + '-by-app.json' : null;
}

/** The pid of one app of the running test stack: its latest replacement (a crash test's) if any, else the one global setup started. */
export function stackPid(app: string): number {
  const file = replacementsFile();
  const replaced = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>)[app] : undefined;
  if (replaced) return replaced;
  const pids = JSON.parse(process.env.TEST_STACK_PIDS ?? '{}') as Record<string, number>;
  if (!pids[app]) throw new Error(`no ${app} in TEST_STACK_PIDS`);
  return pids[app];
}

/** The variable of an app's second port, its port + 1, as tools/dev/stack.mjs gives it: /healthz, /readyz and /metrics answer there. */
const SECOND_PORTS: Record<string, string> = { gateway: 'ADMIN_PORT', console: 'INTERNAL_PORT' };

/** Where an app started on `port` answers /healthz, /readyz and /metrics (`http://127.0.0.1:<port>`). */
export function healthOrigin(app: string, port: number): string {
  return `http://127.0.0.1:${SECOND_PORTS[app] ? port + 1 : port}`;
}

/** The test stack's log folder (TEST_LOG_DIR, set by global setup); `.data/logs` outside a test run. */
export function testLogDir(): string {
  return process.env.TEST_LOG_DIR ?? path.join(ROOT, '.data/logs');
}

/**
 * Starts an app from dist/ like the stack does, on its port, logging to the test stack's log folder. With `replaces`
 * the process takes over from a stack process for the rest of the run (global teardown stops it).
 */
export function spawnApp(app: string, port: number, options: { logName: string; env?: Record<string, string>; replaces?: boolean }): ChildProcess {
  const logDir = testLogDir();
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(path.join(logDir, `${options.logName}.log`), { flags: 'a' });
  // Through the launcher every start path shares (its heap and malloc settings); it execs node, so the pid is the app's.
  const child = spawn('/bin/sh', [path.join(ROOT, 'deploy/start-app.sh'), process.execPath, path.join(ROOT, `dist/apps/${app}/src/main.js`)], {
    cwd: ROOT,
    env: { ...process.env, ...(options.env ?? {}), PORT: String(port), ...(SECOND_PORTS[app] ? { [SECOND_PORTS[app]]: String(port + 1) } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.replaces === true,
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  if (options.replaces) {
    child.unref();
    const file = process.env.TEST_EXTRA_PIDS_FILE;
    if (!file) throw new Error('TEST_EXTRA_PIDS_FILE is not set');
    mkdirSync(path.dirname(file), { recursive: true });
    const pids: number[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
    writeFileSync(file, JSON.stringify([...pids, child.pid]));
    const byApp = replacementsFile()!;
    const replaced: Record<string, number> = existsSync(byApp) ? JSON.parse(readFileSync(byApp, 'utf8')) : {};
    writeFileSync(byApp, JSON.stringify({ ...replaced, [app]: child.pid }));
  }
  return child;
}

/** Waits until `url` answers 2xx (a /readyz), failing early when the process exits. */
export async function waitReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not ready in ${timeoutMs} ms`);
}

/** Resolves once the process with this pid is gone. */
export async function waitForExit(pid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} still running`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SIGTERM, then SIGKILL after 15 s; resolves once the process has exited. */
export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
