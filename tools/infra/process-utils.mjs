/** What every component's launcher uses: output, files, ports, processes, pid files and the start lock. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DIRS, HOST, InfraError, KAFKA, STOP_TIMEOUT_MS } from './infra-config.mjs';

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

export function makeLogger(quiet) {
  return {
    quiet,
    /** progress / state that is only interesting when not quiet */
    info: (msg) => {
      if (!quiet) process.stdout.write(`${msg}\n`);
    },
    /** something is being done (started, downloaded, created): always shown */
    act: (msg) => process.stdout.write(`${msg}\n`),
    warn: (msg) => process.stderr.write(`warning: ${msg}\n`),
  };
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function ensureDir(dir) {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

export function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

export function tailFile(file, lines = 30) {
  const text = readText(file);
  if (text == null) return `(no log at ${file})`;
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}

export function indent(text, prefix = '    ') {
  return text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

export function rel(p) {
  return path.relative(process.cwd(), p) || '.';
}

/**
 * Runs a command, collecting output. Never throws for a non-zero exit; `error` is set if it could not start.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, timeoutMs?: number, input?: string }} [options]
 */
export function run(cmd, args, { cwd, env, timeoutMs = 0, input } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(cmd, args, { cwd, env: env || process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ code: null, stdout: '', stderr: '', error });
      return;
    }
    let stdout = '';
    let stderr = '';
    let timer;
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr, error });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    if (input != null) child.stdin.end(input);
    else child.stdin.end();
  });
}

export function isAlive(pid) {
  if (!pid || !Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EPERM') return false;
  }
  // a zombie (exited, not yet reaped) is not alive for our purposes
  const stat = readText(`/proc/${pid}/stat`);
  if (stat) {
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  }
  return true;
}

export function cmdlineOf(pid) {
  const raw = readText(`/proc/${pid}/cmdline`);
  return raw == null ? null : raw.split('\0').join(' ');
}

/** TCP connect check. */
export function portOpen(port, host = HOST, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (v) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** Who listens on a TCP port (best effort, via `ss -ltnp`). */
export async function portHolder(port) {
  const r = await run('ss', ['-Hltnp', `sport = :${port}`], { timeoutMs: 5000 });
  if (r.error || r.code !== 0 || !r.stdout.trim()) return null;
  const m = r.stdout.match(/users:\(\("([^"]+)",pid=(\d+)/);
  if (!m) return null;
  const pid = Number(m[2]);
  const cmd = (cmdlineOf(pid) || m[1]).trim().slice(0, 160);
  return `pid ${pid} (${cmd})`;
}

/**
 * Error for a port held by something that is not (usable as) our service.
 * `why` completes "port H:P is already in use by X, <why>".
 */
export async function portTakenError(component, port, envName, why) {
  const holder = await portHolder(port);
  return new InfraError(
    `${component}: port ${HOST}:${port} is already in use${holder ? ` by ${holder}` : ''}, ${why}.\n` +
      `  Stop that process, or choose another port with ${envName}=<port> (the app must get the same value).`,
  );
}

// ---------------------------------------------------------------------------
// Pid files (.data/run/<name>.pid, JSON)
// ---------------------------------------------------------------------------

export function pidFile(name) {
  // A broker of its own (KAFKA_DIR) keeps its pid file there, so the default broker's is never touched.
  if (name === 'kafka' && KAFKA.ownDir) return path.join(KAFKA.home, 'kafka.pid');
  return path.join(DIRS.run, `${name}.pid`);
}

export function readPid(name) {
  const text = readText(pidFile(name));
  if (!text) return null;
  try {
    const j = JSON.parse(text);
    return Number.isInteger(j.pid) ? j : null;
  } catch {
    const pid = Number(text.trim());
    return Number.isInteger(pid) ? { pid } : null;
  }
}

export function writePid(name, info) {
  ensureDir(DIRS.run);
  fs.writeFileSync(pidFile(name), `${JSON.stringify(info)}\n`);
}

export function removePid(name) {
  fs.rmSync(pidFile(name), { force: true });
}

/**
 * Returns the pid record of our running process `name`, or null. A pid file whose
 * process is gone (or is now some other program) is removed.
 */
export function ourProcess(name, markers, log) {
  const rec = readPid(name);
  if (!rec) return null;
  const cmd = cmdlineOf(rec.pid);
  if (isAlive(rec.pid) && (cmd == null || markers.every((m) => cmd.includes(m)))) return rec;
  removePid(name);
  log?.info(`${name}: removed stale pid file (process ${rec.pid} is gone)`);
  return null;
}

export async function killAndWait(pid, timeoutMs = STOP_TIMEOUT_MS) {
  if (!isAlive(pid)) return 'gone';
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return 'gone';
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return 'terminated';
    await sleep(200);
  }
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
  for (let i = 0; i < 25 && isAlive(pid); i++) await sleep(200);
  return 'killed';
}

// ---------------------------------------------------------------------------
// Lock so that two launchers (e.g. a dev shell and a Jest globalSetup) don't race
// ---------------------------------------------------------------------------

export async function withLock(log, fn) {
  ensureDir(DIRS.run);
  const lockFile = path.join(DIRS.run, 'infra.lock');
  const deadline = Date.now() + 5 * 60_000;
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== 'EEXIST') throw e;
      const holder = Number(readText(lockFile));
      if (holder === process.pid || !isAlive(holder)) {
        fs.rmSync(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new InfraError(`another infra.mjs (pid ${holder}) has held ${rel(lockFile)} for 5 minutes; giving up.`);
      }
      if (!announced) {
        log.act(`waiting for another infra.mjs (pid ${holder}) to finish...`);
        announced = true;
      }
      await sleep(300);
    }
  }
  try {
    return await fn();
  } finally {
    if (Number(readText(lockFile)) === process.pid) fs.rmSync(lockFile, { force: true });
  }
}

/** Moves the previous log aside (keeps one generation) and opens a fresh one. */
export function freshLog(name, dir = DIRS.logs) {
  ensureDir(dir);
  const file = path.join(dir, `${name}.log`);
  try {
    if (fs.statSync(file).size > 0) fs.renameSync(file, `${file}.1`);
  } catch {
    /* no previous log */
  }
  return file;
}

/** Starts a long-running process detached from us (survives our exit), output appended to logFile. */
export function spawnDetached(cmd, args, logFile, cwd) {
  const fd = fs.openSync(logFile, 'a');
  let child;
  try {
    child = spawn(cmd, args, { cwd, detached: true, stdio: ['ignore', fd, fd], env: process.env });
  } finally {
    fs.closeSync(fd);
  }
  /** @type {{ exited: boolean, code: number | NodeJS.Signals | null, error: Error | null }} */
  const state = { exited: false, code: null, error: null };
  child.on('exit', (code, signal) => {
    state.exited = true;
    state.code = code ?? signal;
  });
  child.on('error', (error) => {
    state.exited = true;
    state.error = error;
  });
  child.unref();
  return { pid: child.pid, state };
}
