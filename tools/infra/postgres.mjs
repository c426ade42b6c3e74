/** PostgreSQL: the machine's server, or a cluster of our own, and the platform's databases. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DATA, DIRS, HOST, InfraError, PG_READY_TIMEOUT_MS, STOP_TIMEOUT_MS } from './infra-config.mjs';
import { ensureDir, indent, isAlive, killAndWait, portHolder, portOpen, readPid, readText, rel, removePid, run, tailFile, writePid } from './process-utils.mjs';

// ---------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------

export const PG = {
  dataDir: path.join(DIRS.pg, 'data'),
  logFile: path.join(DIRS.logs, 'postgres.log'),
};

export function pgSocketDir() {
  const dir = path.join(DIRS.pg, 'run');
  // unix socket paths are limited to ~107 bytes
  return dir.length + 20 < 107 ? dir : path.join('/tmp', `infra-pg-${crypto.createHash('sha1').update(DATA).digest('hex').slice(0, 10)}`);
}

export const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL server binary as the `postgres` OS user when we are root (initdb/postgres refuse root). */
export function runAsPg(bin, args, opts = {}) {
  if (isRoot()) return run('runuser', ['-u', 'postgres', '--', bin, ...args], opts);
  return run(bin, args, opts);
}

export async function psql(cfg, sql, db = 'postgres') {
  return run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(cfg.pg.port), '-U', cfg.pg.user, '-d', db, '-c', sql], {
    env: { ...process.env, PGCONNECT_TIMEOUT: '5' },
    timeoutMs: 30_000,
  });
}

export function pgBinDirs() {
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')));
  } catch {
    /* none */
  }
  return versions.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(base, v, 'bin'));
}

export async function aptInstall(pkgs, log) {
  if (!isRoot()) {
    throw new InfraError(`PostgreSQL is needed but ${pkgs.join(' ')} is not installed. Run: sudo apt-get install -y ${pkgs.join(' ')}`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log.act(`postgres: installing ${pkgs.join(' ')} with apt-get (one time)...`);
  const u = await run('apt-get', ['update'], { env, timeoutMs: 10 * 60_000 });
  const i = u.error ? u : await run('apt-get', ['install', '-y', '--no-install-recommends', ...pkgs], { env, timeoutMs: 15 * 60_000 });
  if (i.error || i.code !== 0) {
    throw new InfraError(
      `apt-get install ${pkgs.join(' ')} failed:\n${indent(`${i.stdout}\n${i.stderr}`.trim().split('\n').slice(-20).join('\n') || String(i.error))}`,
    );
  }
}

export async function ensurePsql(log) {
  const r = await run('psql', ['--version']);
  if (!r.error) return;
  await aptInstall(['postgresql-client'], log);
}

/** Checks `select 1` on the configured port. Returns { ok, detail }. */
export async function pgAnswers(cfg) {
  if (!(await portOpen(cfg.pg.port))) return { ok: false, open: false, detail: 'port closed' };
  const r = await psql(cfg, 'select 1');
  return { ok: r.code === 0 && r.stdout.trim() === '1', open: true, detail: (r.stderr || r.stdout || String(r.error || '')).trim() };
}

export async function ensureDatabases(cfg, log) {
  const r = await psql(cfg, 'select datname from pg_database');
  if (r.code !== 0) throw new InfraError(`postgres: cannot list databases: ${r.stderr.trim()}`);
  const have = new Set(r.stdout.split('\n').map((s) => s.trim()));
  for (const db of cfg.pg.databases) {
    if (have.has(db)) continue;
    const c = await psql(cfg, `CREATE DATABASE "${db}"`);
    if (c.code !== 0 && !/already exists/.test(c.stderr)) {
      throw new InfraError(`postgres: CREATE DATABASE ${db} failed: ${c.stderr.trim()}`);
    }
    log.act(`postgres: created database ${db}`);
  }
}

export function ourPg() {
  const rec = readPid('postgres');
  if (!rec) return null;
  const pmPid = Number((readText(path.join(PG.dataDir, 'postmaster.pid')) || '').split('\n')[0]);
  if (pmPid && isAlive(pmPid)) return { ...rec, pid: pmPid };
  return { ...rec, pid: null };
}

export async function startOwnPg(cfg, log) {
  let bins = pgBinDirs();
  if (bins.length === 0) {
    await aptInstall(['postgresql'], log);
    // The Debian package may have created and started its own cluster on 5432.
    const again = await pgAnswers(cfg);
    if (again.ok) return 'external';
    bins = pgBinDirs();
    if (bins.length === 0) throw new InfraError('postgres: apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb was found.');
  }
  const bin = bins[0];
  const sockDir = pgSocketDir();
  ensureDir(PG.dataDir);
  ensureDir(sockDir);
  ensureDir(DIRS.logs);
  if (!fs.existsSync(PG.logFile)) fs.writeFileSync(PG.logFile, '');
  if (isRoot()) {
    const ch = await run('chown', ['-R', 'postgres:postgres', DIRS.pg, sockDir, PG.logFile]);
    if (ch.code !== 0) throw new InfraError(`postgres: chown to the postgres user failed: ${ch.stderr.trim()}`);
  }
  fs.chmodSync(PG.dataDir, 0o700);

  if (!fs.existsSync(path.join(PG.dataDir, 'PG_VERSION'))) {
    log.act(`postgres: creating a cluster in ${rel(PG.dataDir)} (${path.basename(path.dirname(bin))})`);
    const r = await runAsPg(path.join(bin, 'initdb'), ['-D', PG.dataDir, '-U', cfg.pg.user, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], {
      timeoutMs: 120_000,
    });
    if (r.code !== 0) throw new InfraError(`postgres: initdb failed:\n${indent(`${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n'))}`);
  }
  log.act(`postgres: starting on ${HOST}:${cfg.pg.port}, log ${rel(PG.logFile)}`);
  const r = await runAsPg(
    path.join(bin, 'pg_ctl'),
    ['-D', PG.dataDir, '-o', `-h ${HOST} -p ${cfg.pg.port} -k ${sockDir}`, '-l', PG.logFile, '-w', '-t', String(PG_READY_TIMEOUT_MS / 1000), 'start'],
    { timeoutMs: PG_READY_TIMEOUT_MS + 10_000 },
  );
  if (r.code !== 0) {
    throw new InfraError(
      `postgres: pg_ctl start failed:\n${indent(`${r.stdout}\n${r.stderr}`.trim())}\nLast lines of ${rel(PG.logFile)}:\n${indent(tailFile(PG.logFile))}`,
    );
  }
  const pmPid = Number((readText(path.join(PG.dataDir, 'postmaster.pid')) || '').split('\n')[0]);
  writePid('postgres', { pid: pmPid, port: cfg.pg.port, bin, dataDir: PG.dataDir, startedAt: new Date().toISOString() });
  return 'ours';
}

export async function startPostgres(cfg, log) {
  const addr = `${HOST}:${cfg.pg.port}`;
  await ensurePsql(log);
  const own = ourPg();
  if (own?.pid && own.port && own.port !== cfg.pg.port) {
    throw new InfraError(
      `postgres: the cluster in ${rel(PG.dataDir)} started by infra.mjs runs on port ${own.port}, not PGPORT=${cfg.pg.port}.\n` +
        '  Run `node tools/infra/infra.mjs stop postgres` first (or use the old port).',
    );
  }
  let state = await pgAnswers(cfg);
  let started = false;
  let external = false;
  if (state.ok) {
    external = !(own && own.pid);
    log.info(external ? `postgres  using the PostgreSQL already on ${addr}` : `postgres  already running (pid ${own.pid}) on ${addr}`);
  } else if (state.open) {
    const holder = await portHolder(cfg.pg.port);
    throw new InfraError(
      `postgres: port ${addr} is open${holder ? ` (held by ${holder})` : ''} but \`psql -h ${HOST} -p ${cfg.pg.port} -U ${cfg.pg.user} -c 'select 1'\` failed:\n${indent(state.detail)}\n` +
        '  Fix access (PGUSER/PGPASSWORD) or use another port with PGPORT=<port>.',
    );
  } else {
    if (own && !own.pid) removePid('postgres');
    const how = await startOwnPg(cfg, log);
    external = how === 'external';
    started = !external;
    state = await pgAnswers(cfg);
    if (!state.ok) throw new InfraError(`postgres: started, but \`select 1\` failed: ${state.detail}`);
  }
  await ensureDatabases(cfg, log);
  if (started) log.act(`postgres: ready on ${addr}`);
  return { started, external };
}

export async function stopPostgres(log) {
  const own = ourPg();
  if (!own) {
    log.info('postgres  not started by infra.mjs; leaving it alone');
    return;
  }
  if (!own.pid) {
    removePid('postgres');
    log.info('postgres  was not running (removed stale pid file)');
    return;
  }
  const bin = own.bin || pgBinDirs()[0];
  log.act(`postgres: stopping (pid ${own.pid})...`);
  const r = bin
    ? await runAsPg(path.join(bin, 'pg_ctl'), ['-D', own.dataDir || PG.dataDir, '-m', 'fast', '-w', '-t', String(STOP_TIMEOUT_MS / 1000), 'stop'], {
        timeoutMs: STOP_TIMEOUT_MS + 10_000,
      })
    : { code: 1 };
  if (r.code !== 0) await killAndWait(own.pid);
  removePid('postgres');
  log.act('postgres: stopped');
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------
