/**
 * The `npm start` supervisor on a stack of its own (ports, database, Kafka namespace, pid file): it
 * restarts an app killed with -9 and records the new pid, and `npm stop` stops it and every app.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { eventually, waitForExit } from '#platform/testing';

const ROOT = path.resolve(__dirname, '../..');
// Clear of the jest stack's ports (TEST_BASE_PORT … +96).
const BASE_PORT = Number(process.env.TEST_BASE_PORT ?? 4000) + 200;
const TAG = `supervisor-test-${BASE_PORT}`;
const DATABASE = `${process.env.TEST_DATABASE ?? 'platform_test'}_supervisor`;
const ADMIN_DATABASE_URL = process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pidFileOf = (tag: string) => path.join(ROOT, '.data/run', `stack-${tag}.json`);
const PID_FILE = pidFileOf(TAG);
// The stale-file case has a tag of its own: its fake file must never hide the real stack's.
const STALE_TAG = `${TAG}-stale`;
// Only what a developer's shell would give: the jest stack's variables must not reach these apps.
const SHELL_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

type PidFile = { supervisor?: number; ports: Record<string, number>; pids: Record<string, number> };
const readPidFile = (): PidFile | null => (existsSync(PID_FILE) ? (JSON.parse(readFileSync(PID_FILE, 'utf8')) as PidFile) : null);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const stop = (tag = TAG) => promisify(execFile)(process.execPath, [path.join(ROOT, 'tools/dev/stop.mjs'), '--tag', tag], { cwd: ROOT, env: SHELL_ENV });

async function adminQuery(sql: string) {
  const client = new Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('dev supervisor (npm start / npm stop)', () => {
  let supervisor: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    await adminQuery(`drop database if exists ${DATABASE} with (force)`);
    await adminQuery(`create database ${DATABASE}`);
  });

  afterAll(async () => {
    // Whatever a failed assertion left running is stopped the way a developer would.
    if (readPidFile()) await stop().catch(() => undefined);
    // SIGTERM, not SIGKILL: a supervisor that still runs stops its apps instead of orphaning them.
    if (supervisor && supervisor.exitCode === null && supervisor.signalCode === null) {
      supervisor.kill('SIGTERM');
      await waitForExit(supervisor.pid!, 30_000).catch(() => supervisor!.kill('SIGKILL'));
    }
    await adminQuery(`drop database if exists ${DATABASE} with (force)`);
  });

  it('restarts an app killed with -9, keeps the pid file true, and npm stop stops everything', async () => {
    const args = ['--port', String(BASE_PORT), '--database', DATABASE, '--tag', TAG, '--fresh-namespace', `${DATABASE}_`, '--skip-build', '--skip-seed'];
    supervisor = spawn(process.execPath, [path.join(ROOT, 'tools/dev/start.mjs'), ...args], { cwd: ROOT, env: SHELL_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    supervisor.stdout!.on('data', (chunk) => (output += chunk));
    supervisor.stderr!.on('data', (chunk) => (output += chunk));
    await eventually(async () => output.includes('is running') || supervisor!.exitCode !== null, 45_000, 100);
    if (supervisor.exitCode !== null) throw new Error(`npm start exited with ${supervisor.exitCode}:\n${output}`);

    const first = readPidFile()!;
    expect(first.supervisor).toBe(supervisor.pid);
    const victim = first.pids.profile;
    process.kill(victim, 'SIGKILL');

    const restarted = await eventually(
      async () => {
        const now = readPidFile();
        return now && now.pids.profile !== victim && alive(now.pids.profile) ? now : null;
      },
      15_000,
      100,
    );
    await eventually(async () => (await fetch(`http://127.0.0.1:${first.ports.profile}/healthz`).catch(() => null))?.ok, 20_000, 100);
    expect(output).toMatch(/profile exited \(SIGKILL\); restarting in 0 s/);
    expect(readFileSync(path.join(ROOT, '.data/logs', `${TAG}-profile.log`), 'utf8')).toMatch(/profile exited \(SIGKILL\); restarting in 0 s/);

    await stop();
    const everyPid = [supervisor.pid!, ...Object.values(restarted.pids)];
    await Promise.all(everyPid.map((pid) => waitForExit(pid, 5_000)));
    expect(everyPid.filter(alive)).toEqual([]);
    expect(existsSync(PID_FILE)).toBe(false);
  }, 90_000);

  it('a pid file whose supervisor is gone is removed without signalling the pids it lists', async () => {
    // A pid that no longer runs stands for the supervisor; a live process that is none of ours stands
    // for an app pid the system has since given to something else.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    try {
      mkdirSync(path.dirname(pidFileOf(STALE_TAG)), { recursive: true });
      writeFileSync(pidFileOf(STALE_TAG), JSON.stringify({ supervisor: gone.pid, ports: { profile: BASE_PORT + 40 }, pids: { profile: bystander.pid } }));
      const { stdout } = await stop(STALE_TAG);
      expect(stdout).toMatch(/stale/);
      expect(existsSync(pidFileOf(STALE_TAG))).toBe(false);
      expect(bystander.exitCode).toBeNull();
      expect(alive(bystander.pid!)).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
