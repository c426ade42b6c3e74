/**
 * The pid file of a stack left running in the background (`npm start`): the supervisor's pid and the
 * current pid of each app, so `npm stop` (and `npm test`, before it starts) can stop what runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function pidFile(tag) {
  return path.join(ROOT, '.data/run', `stack-${tag}.json`);
}

/** Writes { supervisor, ports, pids } whole: a reader never sees half a file. */
export function recordStack(tag, { supervisor, ports, children }) {
  const file = pidFile(tag);
  mkdirSync(path.dirname(file), { recursive: true });
  const pids = Object.fromEntries(Object.entries(children).map(([app, child]) => [app, child.pid]));
  writeFileSync(`${file}.tmp`, JSON.stringify({ supervisor, ports, pids }, null, 2));
  renameSync(`${file}.tmp`, file);
}

function readRecord(tag) {
  try {
    return JSON.parse(readFileSync(pidFile(tag), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Stops a background stack by its pid file: the supervisor is asked to stop (it stops its apps and
 * removes the file); apps still running after that, or left by a supervisor that is gone (a stale
 * file), are stopped only if their command line is still one of ours, since a dead process's pid may
 * since belong to anything. Returns false without a file, 'stale' when the supervisor was gone, else
 * 'stopped'.
 */
export async function stopRecordedStack(tag) {
  if (!existsSync(pidFile(tag))) return false;
  const first = readRecord(tag) ?? { pids: {} };
  const supervisor = first.supervisor && isOurs(first.supervisor, 'tools/dev/start.mjs') ? first.supervisor : null;
  if (supervisor) {
    signal(supervisor, 'SIGTERM');
    if (!(await allGone([supervisor], 30_000))) signal(supervisor, 'SIGKILL');
  }
  // The file may have changed between the reads (a restart): every pid either listed is a candidate.
  const latest = readRecord(tag) ?? { pids: {} };
  const apps = [...Object.entries(first.pids ?? {}), ...Object.entries(latest.pids ?? {})]
    .filter(([app, pid]) => isOurs(pid, path.join(ROOT, `dist/apps/${app}/src/main.js`)))
    .map(([, pid]) => pid);
  for (const pid of apps) signal(pid, 'SIGTERM');
  if (!(await allGone(apps, 15_000))) for (const pid of apps) signal(pid, 'SIGKILL');
  rmSync(pidFile(tag), { force: true });
  return supervisor ? 'stopped' : 'stale';
}

/** Whether `pid` runs and its command line names `marker` (a script of ours). */
function isOurs(pid, marker) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    const proc = `/proc/${pid}/cmdline`;
    const command = existsSync(proc)
      ? readFileSync(proc, 'utf8').split('\0').join(' ')
      : execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return command.includes(marker);
  } catch {
    return false;
  }
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function allGone(pids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(alive)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}
