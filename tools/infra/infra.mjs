#!/usr/bin/env node
// Local infrastructure launcher: Kafka (KRaft, single node), S3Proxy and PostgreSQL.
//
//   node tools/infra/infra.mjs start|stop|status|ensure [kafka|s3|postgres ...]
//   node tools/infra/infra.mjs kafka-topics --list        (runs Kafka's TopicCommand)
//
// Dependency-free (Node >= 20 built-ins only). Everything it writes goes under
// <repo>/.data/. See tools/infra/README.md. Long: downloads, Kafka, S3Proxy (with its own SigV4
// signer) and Postgres in one dependency-free script; to be split one component per file.
//
// Programmatic use (e.g. from a Jest globalSetup):
//   const { ensureInfra } = await import('../tools/infra/infra.mjs');
//   const env = await ensureInfra({ quiet: true });   // -> { KAFKA_BROKERS, S3_ENDPOINT, DATABASE_URL, ... }

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureSecureListenerFiles, SCRAM_USER, scramCredential, secureListenerFiles, secureListenerProperties } from './kafka-secure-listener.mjs';

// ---------------------------------------------------------------------------
// Paths and configuration
// ---------------------------------------------------------------------------

const SCRIPT_DIR = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(SCRIPT_DIR, '..', '..');
const DATA = path.join(REPO_ROOT, '.data');
const DIRS = {
  cache: path.join(DATA, 'cache'),
  kafka: path.join(DATA, 'kafka'),
  s3: path.join(DATA, 's3'),
  logs: path.join(DATA, 'logs'),
  run: path.join(DATA, 'run'),
  pg: path.join(DATA, 'pg'),
};
const HOST = '127.0.0.1';

const KAFKA_READY_TIMEOUT_MS = 90_000;
const S3_READY_TIMEOUT_MS = 60_000;
const PG_READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

/** Lib bundles fetched from Maven Central; one pom and one directory each (their trees conflict). */
const LIBS = {
  kafka: {
    label: 'Kafka',
    pom: path.join(SCRIPT_DIR, 'kafka', 'pom.xml'),
    dir: path.join(DIRS.cache, 'kafka-libs'),
  },
  s3proxy: {
    label: 'S3Proxy',
    pom: path.join(SCRIPT_DIR, 's3proxy', 'pom.xml'),
    dir: path.join(DIRS.cache, 's3proxy-libs'),
  },
};

const COMPONENTS = ['kafka', 's3', 'postgres'];

class InfraError extends Error {}

function envPort(name, def) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new InfraError(`${name}=${raw} is not a valid TCP port (1-65535).`);
  }
  return n;
}

/** Reads the environment every call, so callers may change process.env between calls. */
export function infraConfig() {
  const kafkaPort = envPort('KAFKA_PORT', 9092);
  const kafkaControllerPort = envPort('KAFKA_CONTROLLER_PORT', 9093);
  if (kafkaPort === kafkaControllerPort) {
    throw new InfraError(`KAFKA_PORT and KAFKA_CONTROLLER_PORT must differ (both are ${kafkaPort}).`);
  }
  // Off unless set: a second listener speaking SASL_SSL with SCRAM-SHA-512, as production's does.
  const kafkaSecurePort = envPort('KAFKA_SECURE_PORT', null);
  if (kafkaSecurePort !== null && (kafkaSecurePort === kafkaPort || kafkaSecurePort === kafkaControllerPort)) {
    throw new InfraError(`KAFKA_SECURE_PORT must differ from KAFKA_PORT and KAFKA_CONTROLLER_PORT (it is ${kafkaSecurePort}).`);
  }
  const s3Port = envPort('S3_PORT', 9000);
  const pgPort = envPort('PGPORT', 5432);
  const pgUser = process.env.PGUSER || 'postgres';
  const databases = (process.env.PG_DATABASES || 'platform,platform_test')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const db of databases) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(db)) {
      throw new InfraError(`PG_DATABASES: "${db}" is not a plain database name (letters, digits, _).`);
    }
  }
  if (databases.length === 0) throw new InfraError('PG_DATABASES is empty.');
  const bucket = process.env.S3_BUCKET || 'platform-media';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new InfraError(`S3_BUCKET=${bucket} is not a valid S3 bucket name.`);
  }
  return {
    kafka: { port: kafkaPort, controllerPort: kafkaControllerPort, securePort: kafkaSecurePort },
    s3: {
      port: s3Port,
      endpoint: `http://${HOST}:${s3Port}`,
      accessKeyId: process.env.S3_ACCESS_KEY_ID || 'local-access-key',
      secretAccessKey: process.env.S3_SECRET_ACCESS_KEY || 'local-secret-key',
      region: process.env.S3_REGION || 'us-east-1',
      bucket,
    },
    pg: { port: pgPort, user: pgUser, databases },
  };
}

function connectionValues(cfg) {
  const pgUrl = (db) => `postgres://${encodeURIComponent(cfg.pg.user)}@${HOST}:${cfg.pg.port}/${db}`;
  return {
    KAFKA_BROKERS: `${HOST}:${cfg.kafka.port}`,
    S3_ENDPOINT: cfg.s3.endpoint,
    S3_REGION: cfg.s3.region,
    S3_BUCKET: cfg.s3.bucket,
    S3_ACCESS_KEY_ID: cfg.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: cfg.s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
    DATABASE_URL: pgUrl(cfg.pg.databases[0]),
    ...(cfg.pg.databases.includes('platform_test') && cfg.pg.databases[0] !== 'platform_test'
      ? { TEST_DATABASE_URL: pgUrl('platform_test') }
      : {}),
  };
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

function makeLogger(quiet) {
  return {
    quiet,
    /** progress / state that is only interesting when not quiet */
    info: (msg) => { if (!quiet) process.stdout.write(`${msg}\n`); },
    /** something is being done (started, downloaded, created): always shown */
    act: (msg) => process.stdout.write(`${msg}\n`),
    warn: (msg) => process.stderr.write(`warning: ${msg}\n`),
  };
}

// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function ensureDir(dir) {
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function tailFile(file, lines = 30) {
  const text = readText(file);
  if (text == null) return `(no log at ${file})`;
  const all = text.replace(/\s+$/, '').split('\n');
  return all.slice(-lines).join('\n');
}

function indent(text, prefix = '    ') {
  return text.split('\n').map((l) => prefix + l).join('\n');
}

function rel(p) {
  return path.relative(process.cwd(), p) || '.';
}

/** Runs a command, collecting output. Never throws for a non-zero exit; `error` is set if it could not start. */
function run(cmd, args, { cwd, env, timeoutMs = 0, input } = {}) {
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
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', (error) => { clearTimeout(timer); resolve({ code: null, stdout, stderr, error }); });
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
    if (timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    if (input != null) child.stdin.end(input); else child.stdin.end();
  });
}

function isAlive(pid) {
  if (!pid || !Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== 'EPERM') return false;
  }
  // a zombie (exited, not yet reaped) is not alive for our purposes
  const stat = readText(`/proc/${pid}/stat`);
  if (stat) {
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    if (state === 'Z' || state === 'X') return false;
  }
  return true;
}

function cmdlineOf(pid) {
  const raw = readText(`/proc/${pid}/cmdline`);
  return raw == null ? null : raw.split('\0').join(' ');
}

/** TCP connect check. */
function portOpen(port, host = HOST, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (v) => { sock.destroy(); resolve(v); };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/** Who listens on a TCP port (best effort, via `ss -ltnp`). */
async function portHolder(port) {
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
async function portTakenError(component, port, envName, why) {
  const holder = await portHolder(port);
  return new InfraError(
    `${component}: port ${HOST}:${port} is already in use${holder ? ` by ${holder}` : ''}, ${why}.\n` +
      `  Stop that process, or choose another port with ${envName}=<port> (the app must get the same value).`,
  );
}

// ---------------------------------------------------------------------------
// Pid files (.data/run/<name>.pid, JSON)
// ---------------------------------------------------------------------------

function pidFile(name) {
  // A broker of its own (KAFKA_DIR) keeps its pid file there, so the default broker's is never touched.
  if (name === 'kafka' && KAFKA.ownDir) return path.join(KAFKA.home, 'kafka.pid');
  return path.join(DIRS.run, `${name}.pid`);
}

function readPid(name) {
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

function writePid(name, info) {
  ensureDir(DIRS.run);
  fs.writeFileSync(pidFile(name), `${JSON.stringify(info)}\n`);
}

function removePid(name) {
  fs.rmSync(pidFile(name), { force: true });
}

/**
 * Returns the pid record of our running process `name`, or null. A pid file whose
 * process is gone (or is now some other program) is removed.
 */
function ourProcess(name, markers, log) {
  const rec = readPid(name);
  if (!rec) return null;
  const cmd = cmdlineOf(rec.pid);
  if (isAlive(rec.pid) && (cmd == null || markers.every((m) => cmd.includes(m)))) return rec;
  removePid(name);
  log?.info(`${name}: removed stale pid file (process ${rec.pid} is gone)`);
  return null;
}

async function killAndWait(pid, timeoutMs = STOP_TIMEOUT_MS) {
  if (!isAlive(pid)) return 'gone';
  try { process.kill(pid, 'SIGTERM'); } catch { return 'gone'; }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return 'terminated';
    await sleep(200);
  }
  try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  for (let i = 0; i < 25 && isAlive(pid); i++) await sleep(200);
  return 'killed';
}

// ---------------------------------------------------------------------------
// Lock so that two launchers (e.g. a dev shell and a Jest globalSetup) don't race
// ---------------------------------------------------------------------------

async function withLock(log, fn) {
  ensureDir(DIRS.run);
  const lockFile = path.join(DIRS.run, 'infra.lock');
  const deadline = Date.now() + 5 * 60_000;
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
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

// ---------------------------------------------------------------------------
// Java / Maven
// ---------------------------------------------------------------------------

let javaChecked = null;

function javaBin() {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

async function checkJava() {
  if (javaChecked) return javaChecked;
  const bin = javaBin();
  const r = await run(bin, ['-version'], { timeoutMs: 30_000 });
  if (r.error) {
    throw new InfraError(
      `Java was not found (tried "${bin}"). Kafka 4 and S3Proxy need Java 17 or newer.\n` +
        '  Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless   (or set JAVA_HOME)',
    );
  }
  const out = r.stderr + r.stdout;
  const m = out.match(/version "(\d+)(?:\.(\d+))?/);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN;
  if (!(major >= 17)) {
    throw new InfraError(
      `Java 17 or newer is required, but "${bin} -version" reports:\n${indent(out.trim())}\n` +
        '  Install openjdk-17-jre-headless (or newer) or point JAVA_HOME at a JDK 17+.',
    );
  }
  javaChecked = bin;
  return bin;
}

function pomHash(pom) {
  return crypto.createHash('sha256').update(fs.readFileSync(pom)).digest('hex');
}

function libsComplete(lib) {
  const marker = readText(path.join(lib.dir, '.complete'));
  return marker != null && marker.trim() === pomHash(lib.pom);
}

/** Downloads the jars listed in lib.pom into lib.dir, unless already there. */
async function ensureLibs(lib, log) {
  if (libsComplete(lib)) return false;
  const mvnVersion = await run('mvn', ['-v'], { timeoutMs: 60_000 });
  if (mvnVersion.error) {
    throw new InfraError(
      `${lib.label} jars are not in ${rel(lib.dir)} yet and Maven ("mvn") was not found to download them.\n` +
        '  Debian/Ubuntu: apt-get install -y maven',
    );
  }
  log.act(`${lib.label}: downloading jars from Maven Central into ${rel(lib.dir)} (first run only)...`);
  const t0 = Date.now();
  const tmp = `${lib.dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  ensureDir(DIRS.cache);
  const r = await run(
    'mvn',
    ['-q', '-B', '-Dstyle.color=never', '-f', lib.pom, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`, '-DincludeScope=runtime'],
    { cwd: path.dirname(lib.pom), timeoutMs: 15 * 60_000 },
  );
  const jars = fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((f) => f.endsWith('.jar')) : [];
  if (r.code !== 0 || jars.length === 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    const tail = `${r.stdout}\n${r.stderr}`
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .filter((l) => l.trim() && l.trim() !== '[ERROR]')
      .slice(-25)
      .join('\n');
    throw new InfraError(
      `Maven could not download the ${lib.label} jars (mvn exit ${r.code ?? r.signal}).\n` +
        `${indent(tail || '(no output)')}\n` +
        '  Maven Central (https://repo.maven.apache.org/maven2) must be reachable from this machine\n' +
        '  (check network/proxy settings in ~/.m2/settings.xml), then run the command again.',
    );
  }
  fs.writeFileSync(path.join(tmp, '.complete'), `${pomHash(lib.pom)}\n`);
  fs.rmSync(lib.dir, { recursive: true, force: true });
  fs.renameSync(tmp, lib.dir);
  log.act(`${lib.label}: ${jars.length} jars downloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

/** Extra JVM flags from the environment (later flags override earlier ones, e.g. -Xmx2g). */
function extraJavaOpts(envName) {
  return (process.env[envName] || '').split(/\s+/).filter(Boolean);
}

function classpath(lib) {
  return `${lib.dir}${path.sep}*`;
}

/** Moves the previous log aside (keeps one generation) and opens a fresh one. */
function freshLog(name, dir = DIRS.logs) {
  ensureDir(dir);
  const file = path.join(dir, `${name}.log`);
  try {
    if (fs.statSync(file).size > 0) fs.renameSync(file, `${file}.1`);
  } catch { /* no previous log */ }
  return file;
}

/** Starts a long-running process detached from us (survives our exit), output appended to logFile. */
function spawnDetached(cmd, args, logFile, cwd) {
  const fd = fs.openSync(logFile, 'a');
  let child;
  try {
    child = spawn(cmd, args, { cwd, detached: true, stdio: ['ignore', fd, fd], env: process.env });
  } finally {
    fs.closeSync(fd);
  }
  const state = { exited: false, code: null, error: null };
  child.on('exit', (code, signal) => { state.exited = true; state.code = code ?? signal; });
  child.on('error', (error) => { state.exited = true; state.error = error; });
  child.unref();
  return { pid: child.pid, state };
}

// ---------------------------------------------------------------------------
// Kafka
// ---------------------------------------------------------------------------

// KAFKA_DIR: a second broker beside the default one (a chaos run's, on other KAFKA_PORT and
// KAFKA_CONTROLLER_PORT) keeps its configuration, data, cluster id, pid file and log there.
const KAFKA_HOME = process.env.KAFKA_DIR ? path.resolve(process.env.KAFKA_DIR) : DIRS.kafka;
const KAFKA = {
  home: KAFKA_HOME,
  ownDir: Boolean(process.env.KAFKA_DIR),
  serverProps: path.join(KAFKA_HOME, 'server.properties'),
  dataDir: path.join(KAFKA_HOME, 'data'),
  clusterIdFile: path.join(KAFKA_HOME, 'cluster-id'),
  log4j: path.join(SCRIPT_DIR, 'kafka', 'log4j2.properties'),
  logFile: process.env.KAFKA_DIR ? path.join(KAFKA_HOME, 'kafka.log') : path.join(DIRS.logs, 'kafka.log'),
};
const kafkaMarkers = () => ['kafka.Kafka', KAFKA.serverProps];

/**
 * Sends a Kafka ApiVersions (v0) request and resolves true if a Kafka broker answers
 * (error code 0, or 35 UNSUPPORTED_VERSION which still proves it speaks Kafka).
 */
export function kafkaAnswers(port, host = HOST, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const clientId = Buffer.from('infra-check');
    const correlationId = 0x1f2e3d4c;
    const body = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
    body.writeInt16BE(18, 0); // api_key ApiVersions
    body.writeInt16BE(0, 2); // api_version 0
    body.writeInt32BE(correlationId, 4);
    body.writeInt16BE(clientId.length, 8);
    clientId.copy(body, 10);
    const frame = Buffer.alloc(4 + body.length);
    frame.writeInt32BE(body.length, 0);
    body.copy(frame, 4);

    const sock = net.connect({ port, host });
    let buf = Buffer.alloc(0);
    const done = (v) => { sock.destroy(); resolve(v); };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('error', () => done(false));
    sock.once('connect', () => sock.write(frame));
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4) return;
      const size = buf.readInt32BE(0);
      if (size < 6 || size > 1 << 20) return done(false);
      if (buf.length < 4 + size) return;
      const corr = buf.readInt32BE(4);
      const errorCode = buf.readInt16BE(8);
      done(corr === correlationId && (errorCode === 0 || errorCode === 35));
    });
    sock.once('end', () => done(false));
  });
}

function kafkaServerProperties(cfg) {
  const { port, controllerPort, securePort } = cfg.kafka;
  const secure = securePort === null ? null : secureListenerFiles(KAFKA.home);
  return [
    '# Generated by tools/infra/infra.mjs on every start; edit the script, not this file.',
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${HOST}:${controllerPort}`,
    `listeners=PLAINTEXT://${HOST}:${port},CONTROLLER://${HOST}:${controllerPort}${secure ? `,SASL_SSL://${HOST}:${securePort}` : ''}`,
    `advertised.listeners=PLAINTEXT://${HOST}:${port}${secure ? `,SASL_SSL://${HOST}:${securePort}` : ''}`,
    `listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${secure ? ',SASL_SSL:SASL_SSL' : ''}`,
    ...(secure ? secureListenerProperties(secure) : []),
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    `log.dirs=${KAFKA.dataDir}`,
    'num.partitions=3',
    'default.replication.factor=1',
    'auto.create.topics.enable=false',
    'delete.topic.enable=true',
    'group.initial.rebalance.delay.ms=0',
    // The apps' groups use 3 s sessions (KAFKA_SESSION_TIMEOUT_MS) so a killed replica's partitions
    // move within seconds; Kafka's default floor is 6 s.
    'group.min.session.timeout.ms=1000',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=10',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'transaction.state.log.num.partitions=10',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'min.insync.replicas=1',
    'num.network.threads=2',
    'num.io.threads=4',
    'num.recovery.threads.per.data.dir=1',
    'log.retention.hours=168',
    '',
  ].join('\n');
}

function kafkaClusterId() {
  const saved = readText(KAFKA.clusterIdFile)?.trim();
  if (saved) return saved;
  // data dir formatted but id file lost: recover the id from meta.properties
  const meta = readText(path.join(KAFKA.dataDir, 'meta.properties'));
  const fromMeta = meta?.match(/^cluster\.id=(.+)$/m)?.[1]?.trim();
  const id = fromMeta || crypto.randomBytes(16).toString('base64url'); // 22 chars
  fs.writeFileSync(KAFKA.clusterIdFile, `${id}\n`);
  return id;
}

async function formatKafkaIfNeeded(java, cfg, log) {
  if (fs.existsSync(path.join(KAFKA.dataDir, 'meta.properties'))) return;
  const clusterId = kafkaClusterId();
  const secure = cfg.kafka.securePort === null ? null : secureListenerFiles(KAFKA.home);
  log.act(`kafka: formatting storage in ${rel(KAFKA.dataDir)} (cluster id ${clusterId})`);
  const r = await run(
    java,
    [
      `-Dlog4j2.configurationFile=${KAFKA.log4j}`,
      '-cp', classpath(LIBS.kafka),
      'kafka.tools.StorageTool', 'format', '--ignore-formatted',
      '-t', clusterId, '-c', KAFKA.serverProps,
      ...(secure ? ['--add-scram', scramCredential(secure, true)] : []),
    ],
    { cwd: KAFKA.home, timeoutMs: 120_000 },
  );
  if (r.code !== 0) {
    throw new InfraError(
      `kafka: formatting the storage failed (exit ${r.code ?? r.signal}):\n${indent(`${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-30).join('\n'))}`,
    );
  }
  if (secure) fs.writeFileSync(secure.userAddedFile, `${new Date().toISOString()}\n`);
}

/** A store formatted before the secure listener was turned on gets its SCRAM user from the running broker. */
async function addScramUserIfNeeded(java, cfg, log) {
  if (cfg.kafka.securePort === null) return;
  const secure = secureListenerFiles(KAFKA.home);
  if (fs.existsSync(secure.userAddedFile)) return;
  log.act('kafka: adding the SCRAM-SHA-512 user of the secure listener');
  const r = await run(
    java,
    [
      `-Dlog4j2.configurationFile=${KAFKA.log4j}`,
      '-cp', classpath(LIBS.kafka),
      'kafka.admin.ConfigCommand', '--bootstrap-server', `${HOST}:${cfg.kafka.port}`,
      '--alter', '--add-config', scramCredential(secure, false), '--entity-type', 'users', '--entity-name', SCRAM_USER,
    ],
    { cwd: KAFKA.home, timeoutMs: 120_000 },
  );
  if (r.code !== 0) throw new InfraError(`kafka: adding the SCRAM user failed (exit ${r.code ?? r.signal}):\n${indent(`${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-30).join('\n'))}`);
  fs.writeFileSync(secure.userAddedFile, `${new Date().toISOString()}\n`);
}

async function waitForKafka(cfg, child, pid, log, t0) {
  const deadline = t0 + KAFKA_READY_TIMEOUT_MS;
  let logged = false;
  while (Date.now() < deadline) {
    if ((child && child.state.exited) || !isAlive(pid)) {
      removePid('kafka');
      throw new InfraError(
        `kafka: the broker process (pid ${pid}) exited during startup${child?.state.error ? ` (${child.state.error.message})` : ''}. Last lines of ${rel(KAFKA.logFile)}:\n${indent(tailFile(KAFKA.logFile))}`,
      );
    }
    if (!logged) logged = /Kafka Server started/.test(readText(KAFKA.logFile) || '');
    if (logged && (await kafkaAnswers(cfg.kafka.port))) return;
    await sleep(200);
  }
  throw new InfraError(
    `kafka: not ready after ${KAFKA_READY_TIMEOUT_MS / 1000} s (pid ${pid} still running; \`stop\` will end it). Last lines of ${rel(KAFKA.logFile)}:\n${indent(tailFile(KAFKA.logFile))}`,
  );
}

async function startKafka(cfg, log) {
  const t0 = Date.now();
  const addr = `${HOST}:${cfg.kafka.port}`;
  const ours = ourProcess('kafka', kafkaMarkers(), log);
  if (ours) {
    if (await kafkaAnswers(cfg.kafka.port)) {
      log.info(`kafka     already running (pid ${ours.pid}) on ${addr}`);
      return { started: false, external: false };
    }
    log.act(`kafka: process ${ours.pid} is running but not answering yet on ${addr}; waiting...`);
    await waitForKafka(cfg, null, ours.pid, log, t0);
    log.act(`kafka: ready on ${addr}`);
    return { started: false, external: false };
  }
  if (await portOpen(cfg.kafka.port)) {
    if (await kafkaAnswers(cfg.kafka.port)) {
      log.info(`kafka     using the Kafka broker already on ${addr} (not started by infra.mjs)`);
      return { started: false, external: true };
    }
    throw await portTakenError('kafka', cfg.kafka.port, 'KAFKA_PORT', 'and it is not a Kafka broker (no answer to a Kafka ApiVersions request)');
  }
  if (await portOpen(cfg.kafka.controllerPort)) {
    throw await portTakenError('kafka', cfg.kafka.controllerPort, 'KAFKA_CONTROLLER_PORT', 'so the Kafka controller listener cannot bind to it');
  }
  if (cfg.kafka.securePort !== null && (await portOpen(cfg.kafka.securePort))) {
    throw await portTakenError('kafka', cfg.kafka.securePort, 'KAFKA_SECURE_PORT', 'so the SASL_SSL listener cannot bind to it');
  }

  const java = await checkJava();
  await ensureLibs(LIBS.kafka, log);
  ensureDir(KAFKA.dataDir);
  if (cfg.kafka.securePort !== null) ensureSecureListenerFiles(KAFKA.home, HOST);
  fs.writeFileSync(KAFKA.serverProps, kafkaServerProperties(cfg));
  await formatKafkaIfNeeded(java, cfg, log);

  const logFile = freshLog('kafka', path.dirname(KAFKA.logFile));
  const args = [
    '-Xms256m', '-Xmx768m',
    '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=20', '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    // Full tiered compilation (C1, then C2 for hot code). C1 alone (-XX:TieredStopAtLevel=1) leaves the
    // broker's request path about a third costlier: at 100 sends/s (bench:messages --rate 100) the broker
    // took 0.33-0.39 cores with it against 0.23-0.28 without, on a machine whose two cores run the whole
    // stack. Start-up took 6-22 s either way.
    '-Xshare:auto',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${KAFKA.log4j}`,
    `-Dkafka.logs.dir=${KAFKA.ownDir ? KAFKA.home : DIRS.logs}`,
    ...extraJavaOpts('KAFKA_JAVA_OPTS'),
    '-cp', classpath(LIBS.kafka),
    'kafka.Kafka', KAFKA.serverProps,
  ];
  log.act(`kafka: starting broker on ${addr} (controller ${HOST}:${cfg.kafka.controllerPort}), log ${rel(logFile)}`);
  const child = spawnDetached(java, args, logFile, KAFKA.home);
  if (!child.pid) throw new InfraError(`kafka: could not start ${java}`);
  writePid('kafka', { pid: child.pid, port: cfg.kafka.port, controllerPort: cfg.kafka.controllerPort, startedAt: new Date().toISOString() });
  await waitForKafka(cfg, child, child.pid, log, t0);
  await addScramUserIfNeeded(java, cfg, log);
  log.act(`kafka: ready on ${addr}${cfg.kafka.securePort === null ? '' : ` and SASL_SSL ${HOST}:${cfg.kafka.securePort} (CA and password in ${rel(secureListenerFiles(KAFKA.home).dir)})`} (pid ${child.pid}, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return { started: true, external: false };
}

// ---------------------------------------------------------------------------
// S3 (S3Proxy, filesystem backend)
// ---------------------------------------------------------------------------

const S3 = {
  props: path.join(DATA, 's3proxy.properties'),
  logback: path.join(SCRIPT_DIR, 's3proxy', 'logback.xml'),
  logFile: path.join(DIRS.logs, 's3proxy.log'),
};
const s3Markers = () => ['org.gaul.s3proxy.Main', S3.props];

const sha256hex = (data) => crypto.createHash('sha256').update(data).digest('hex');
const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();
const rfc3986 = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * AWS Signature V4 headers for an S3 request (path-style).
 * Returns the headers to send (host, x-amz-date, x-amz-content-sha256, authorization, + given headers).
 */
export function signS3Request({ method, url, headers = {}, body = '', region, accessKeyId, secretAccessKey, service = 's3', now = new Date() }) {
  const u = new URL(url);
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const dateStamp = amzDate.slice(0, 8);
  const payloadHash = sha256hex(body);
  const h = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = String(v);
  h.host = u.host;
  h['x-amz-date'] = amzDate;
  h['x-amz-content-sha256'] = payloadHash;
  const names = Object.keys(h).sort();
  const canonicalHeaders = names.map((k) => `${k}:${h[k].trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalUri = u.pathname.split('/').map((seg) => rfc3986(decodeURIComponent(seg))).join('/') || '/';
  const canonicalQuery = [...u.searchParams]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [method, canonicalUri, canonicalQuery, canonicalHeaders, names.join(';'), payloadHash].join('\n');
  const scope = `${dateStamp}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, dateStamp);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  h.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return h;
}

/** Signed S3 request against the configured endpoint. Resolves { status, headers, body } or { status: 0, error }. */
export function s3Request(s3cfg, method, pathAndQuery, { body = '', headers = {}, timeoutMs = 5000 } = {}) {
  const url = `${s3cfg.endpoint}${pathAndQuery}`;
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const signed = signS3Request({
    method, url, body: payload, headers, region: s3cfg.region,
    accessKeyId: s3cfg.accessKeyId, secretAccessKey: s3cfg.secretAccessKey,
  });
  if (payload.length || method === 'PUT' || method === 'POST') signed['content-length'] = String(payload.length);
  return new Promise((resolve) => {
    const req = http.request(url, { method, headers: signed, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ status: 0, error }));
    req.end(payload);
  });
}

/** Lists the bucket; creates it with a signed PUT when missing. Returns { ok, created, status, detail }. */
async function s3EnsureBucket(s3cfg, { create = true } = {}) {
  const listPath = `/${s3cfg.bucket}?list-type=2&max-keys=1`;
  let r = await s3Request(s3cfg, 'GET', listPath);
  let created = false;
  if (r.status === 404 && /NoSuchBucket/.test(r.body) && create) {
    const p = await s3Request(s3cfg, 'PUT', `/${s3cfg.bucket}`);
    if (p.status !== 200) return { ok: false, status: p.status, detail: p.error?.message || p.body.slice(0, 300) };
    created = true;
    r = await s3Request(s3cfg, 'GET', listPath);
  }
  return { ok: r.status === 200 && /ListBucketResult/.test(r.body), created, status: r.status, detail: r.error?.message || r.body.slice(0, 300) };
}

function s3ProxyProperties(cfg) {
  return [
    '# Generated by tools/infra/infra.mjs on every start; edit the script, not this file.',
    `s3proxy.endpoint=http://${HOST}:${cfg.s3.port}`,
    's3proxy.authorization=aws-v2-or-v4',
    `s3proxy.identity=${cfg.s3.accessKeyId}`,
    `s3proxy.credential=${cfg.s3.secretAccessKey}`,
    'jclouds.provider=filesystem',
    `jclouds.filesystem.basedir=${DIRS.s3}`,
    '',
  ].join('\n');
}

async function waitForS3(cfg, child, pid, log, t0) {
  const deadline = t0 + S3_READY_TIMEOUT_MS;
  let last = null;
  while (Date.now() < deadline) {
    if ((child && child.state.exited) || !isAlive(pid)) {
      removePid('s3proxy');
      throw new InfraError(
        `s3proxy: the process (pid ${pid}) exited during startup${child?.state.error ? ` (${child.state.error.message})` : ''}. Last lines of ${rel(S3.logFile)}:\n${indent(tailFile(S3.logFile))}`,
      );
    }
    if (await portOpen(cfg.s3.port)) {
      last = await s3EnsureBucket(cfg.s3);
      if (last.ok) return last;
      if (last.status && last.status !== 503) break; // answered, but not the way we need
    }
    await sleep(200);
  }
  throw new InfraError(
    `s3proxy: not ready after ${Math.round((Date.now() - t0) / 1000)} s` +
      (last ? ` (signed ListObjects of "${cfg.s3.bucket}" answered ${last.status}: ${last.detail})` : '') +
      `. Last lines of ${rel(S3.logFile)}:\n${indent(tailFile(S3.logFile))}`,
  );
}

async function startS3(cfg, log) {
  const t0 = Date.now();
  const ep = cfg.s3.endpoint;
  const ours = ourProcess('s3proxy', s3Markers(), log);
  if (ours) {
    const b = await s3EnsureBucket(cfg.s3);
    if (b.ok) {
      log.info(`s3proxy   already running (pid ${ours.pid}) on ${ep}, bucket ${cfg.s3.bucket}`);
      if (b.created) log.act(`s3proxy: created bucket ${cfg.s3.bucket}`);
      return { started: false, external: false };
    }
    if (b.status === 403) {
      throw new InfraError(
        `s3proxy: our S3Proxy (pid ${ours.pid}) rejects the current S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY (HTTP 403).\n` +
          '  It was started with other credentials: run `node tools/infra/infra.mjs stop` and start again.',
      );
    }
    log.act(`s3proxy: process ${ours.pid} is running but not answering yet on ${ep}; waiting...`);
    await waitForS3(cfg, null, ours.pid, log, t0);
    return { started: false, external: false };
  }
  if (await portOpen(cfg.s3.port)) {
    const b = await s3EnsureBucket(cfg.s3);
    if (b.ok) {
      log.info(`s3proxy   using the S3 endpoint already on ${ep} (not started by infra.mjs), bucket ${cfg.s3.bucket}`);
      if (b.created) log.act(`s3: created bucket ${cfg.s3.bucket} on ${ep}`);
      return { started: false, external: true };
    }
    throw await portTakenError(
      's3proxy', cfg.s3.port, 'S3_PORT',
      `and it is not an S3 endpoint that accepts our credentials (signed ListObjects of bucket "${cfg.s3.bucket}" got ${b.status ? `HTTP ${b.status}` : b.detail})`,
    );
  }

  const java = await checkJava();
  await ensureLibs(LIBS.s3proxy, log);
  // With the filesystem backend a bucket is a directory under the base dir.
  ensureDir(path.join(DIRS.s3, cfg.s3.bucket));
  fs.writeFileSync(S3.props, s3ProxyProperties(cfg), { mode: 0o600 });

  const logFile = freshLog('s3proxy');
  const args = [
    '-Xms64m', '-Xmx512m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Xshare:auto',
    '-Djava.awt.headless=true',
    `-Dlogback.configurationFile=${S3.logback}`,
    ...extraJavaOpts('S3PROXY_JAVA_OPTS'),
    '-cp', classpath(LIBS.s3proxy),
    'org.gaul.s3proxy.Main', '--properties', S3.props,
  ];
  log.act(`s3proxy: starting on ${ep} (data ${rel(DIRS.s3)}), log ${rel(logFile)}`);
  const child = spawnDetached(java, args, logFile, DATA);
  if (!child.pid) throw new InfraError(`s3proxy: could not start ${java}`);
  writePid('s3proxy', { pid: child.pid, port: cfg.s3.port, startedAt: new Date().toISOString() });
  const b = await waitForS3(cfg, child, child.pid, log, t0);
  if (b.created) log.act(`s3proxy: created bucket ${cfg.s3.bucket}`);
  log.act(`s3proxy: ready on ${ep}, bucket ${cfg.s3.bucket} (pid ${child.pid}, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return { started: true, external: false };
}

// ---------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------

const PG = {
  dataDir: path.join(DIRS.pg, 'data'),
  logFile: path.join(DIRS.logs, 'postgres.log'),
};

function pgSocketDir() {
  const dir = path.join(DIRS.pg, 'run');
  // unix socket paths are limited to ~107 bytes
  return dir.length + 20 < 107 ? dir : path.join('/tmp', `infra-pg-${crypto.createHash('sha1').update(DATA).digest('hex').slice(0, 10)}`);
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL server binary as the `postgres` OS user when we are root (initdb/postgres refuse root). */
function runAsPg(bin, args, opts = {}) {
  if (isRoot()) return run('runuser', ['-u', 'postgres', '--', bin, ...args], opts);
  return run(bin, args, opts);
}

async function psql(cfg, sql, db = 'postgres') {
  return run(
    'psql',
    ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', HOST, '-p', String(cfg.pg.port), '-U', cfg.pg.user, '-d', db, '-c', sql],
    { env: { ...process.env, PGCONNECT_TIMEOUT: '5' }, timeoutMs: 30_000 },
  );
}

function pgBinDirs() {
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'initdb')));
  } catch { /* none */ }
  return versions.sort((a, b) => Number(b) - Number(a)).map((v) => path.join(base, v, 'bin'));
}

async function aptInstall(pkgs, log) {
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

async function ensurePsql(log) {
  const r = await run('psql', ['--version']);
  if (!r.error) return;
  await aptInstall(['postgresql-client'], log);
}

/** Checks `select 1` on the configured port. Returns { ok, detail }. */
async function pgAnswers(cfg) {
  if (!(await portOpen(cfg.pg.port))) return { ok: false, open: false, detail: 'port closed' };
  const r = await psql(cfg, 'select 1');
  return { ok: r.code === 0 && r.stdout.trim() === '1', open: true, detail: (r.stderr || r.stdout || String(r.error || '')).trim() };
}

async function ensureDatabases(cfg, log) {
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

function ourPg() {
  const rec = readPid('postgres');
  if (!rec) return null;
  const pmPid = Number((readText(path.join(PG.dataDir, 'postmaster.pid')) || '').split('\n')[0]);
  if (pmPid && isAlive(pmPid)) return { ...rec, pid: pmPid };
  return { ...rec, pid: null };
}

async function startOwnPg(cfg, log) {
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
    const r = await runAsPg(path.join(bin, 'initdb'), ['-D', PG.dataDir, '-U', cfg.pg.user, '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8'], { timeoutMs: 120_000 });
    if (r.code !== 0) throw new InfraError(`postgres: initdb failed:\n${indent(`${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-20).join('\n'))}`);
  }
  log.act(`postgres: starting on ${HOST}:${cfg.pg.port}, log ${rel(PG.logFile)}`);
  const r = await runAsPg(
    path.join(bin, 'pg_ctl'),
    ['-D', PG.dataDir, '-o', `-h ${HOST} -p ${cfg.pg.port} -k ${sockDir}`, '-l', PG.logFile, '-w', '-t', String(PG_READY_TIMEOUT_MS / 1000), 'start'],
    { timeoutMs: PG_READY_TIMEOUT_MS + 10_000 },
  );
  if (r.code !== 0) {
    throw new InfraError(`postgres: pg_ctl start failed:\n${indent(`${r.stdout}\n${r.stderr}`.trim())}\nLast lines of ${rel(PG.logFile)}:\n${indent(tailFile(PG.logFile))}`);
  }
  const pmPid = Number((readText(path.join(PG.dataDir, 'postmaster.pid')) || '').split('\n')[0]);
  writePid('postgres', { pid: pmPid, port: cfg.pg.port, bin, dataDir: PG.dataDir, startedAt: new Date().toISOString() });
  return 'ours';
}

async function startPostgres(cfg, log) {
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

async function stopPostgres(log) {
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
    ? await runAsPg(path.join(bin, 'pg_ctl'), ['-D', own.dataDir || PG.dataDir, '-m', 'fast', '-w', '-t', String(STOP_TIMEOUT_MS / 1000), 'stop'], { timeoutMs: STOP_TIMEOUT_MS + 10_000 })
    : { code: 1 };
  if (r.code !== 0) await killAndWait(own.pid);
  removePid('postgres');
  log.act('postgres: stopped');
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

function pickComponents(only) {
  if (!only || only.length === 0) return COMPONENTS;
  const alias = { s3proxy: 's3', pg: 'postgres', postgresql: 'postgres' };
  const list = only.map((c) => alias[c] || c);
  for (const c of list) {
    if (!COMPONENTS.includes(c)) throw new InfraError(`unknown component "${c}" (expected: ${COMPONENTS.join(', ')})`);
  }
  return COMPONENTS.filter((c) => list.includes(c));
}

/**
 * Starts whatever is missing and waits until it is ready. Idempotent.
 * @param {{ quiet?: boolean, only?: Array<'kafka'|'s3'|'postgres'> }} [opts]
 *   quiet: print nothing when everything is already up (actions are still reported).
 * @returns {Promise<Record<string,string> & { started: string[] }>} connection values
 *   (KAFKA_BROKERS, S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION, DATABASE_URL, ...)
 * @throws {Error} with a human-readable message when something cannot be started.
 */
export async function ensureInfra({ quiet = false, only } = {}) {
  const log = makeLogger(quiet);
  const cfg = infraConfig();
  const want = pickComponents(only);
  for (const d of Object.values(DIRS)) if (d !== DIRS.pg) ensureDir(d);
  // keep .data/ out of git even before the root .gitignore lists it
  if (!fs.existsSync(path.join(DATA, '.gitignore'))) fs.writeFileSync(path.join(DATA, '.gitignore'), '*\n');

  return withLock(log, async () => {
    // Downloads first, one at a time (Maven's local repository is not safe for concurrent writers),
    // then the services start in parallel.
    const needKafka = want.includes('kafka') && !ourProcess('kafka', kafkaMarkers()) && !(await portOpen(cfg.kafka.port));
    const needS3 = want.includes('s3') && !ourProcess('s3proxy', s3Markers()) && !(await portOpen(cfg.s3.port));
    if (needKafka || needS3) await checkJava();
    if (needKafka) await ensureLibs(LIBS.kafka, log);
    if (needS3) await ensureLibs(LIBS.s3proxy, log);

    const tasks = { kafka: startKafka, s3: startS3, postgres: startPostgres };
    const results = await Promise.allSettled(want.map((c) => tasks[c](cfg, log)));
    const errors = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    if (errors.length) {
      const msg = errors.map((e) => (e instanceof InfraError ? e.message : e?.stack || String(e))).join('\n');
      const err = new InfraError(msg);
      throw err;
    }
    const started = want.filter((c, i) => results[i].value.started);
    const values = connectionValues(cfg);
    if (!quiet || started.length) {
      log.act('');
      for (const [k, v] of Object.entries(values)) {
        if (k === 'S3_SECRET_ACCESS_KEY' || k === 'S3_REGION' || k === 'S3_FORCE_PATH_STYLE') continue;
        if (k.startsWith('KAFKA') && !want.includes('kafka')) continue;
        if (k.startsWith('S3') && !want.includes('s3')) continue;
        if (k.includes('DATABASE') && !want.includes('postgres')) continue;
        log.act(`${k}=${v}`);
      }
    }
    return { ...values, started };
  });
}

/** Same as ensureInfra but verbose by default. */
export async function startInfra(opts = {}) {
  return ensureInfra({ quiet: false, ...opts });
}

/**
 * Stops the processes this script started (SIGTERM, then SIGKILL after 20 s) and removes their pid files.
 * Services that were already running when infra.mjs found them are left alone.
 * @param {{ quiet?: boolean, only?: Array<'kafka'|'s3'|'postgres'> }} [opts]
 */
export async function stopInfra({ quiet = false, only } = {}) {
  const log = makeLogger(quiet);
  const want = pickComponents(only);
  ensureDir(DIRS.run);
  await withLock(log, async () => {
    const stopJava = async (name, markers, label) => {
      const rec = ourProcess(name, markers, log);
      if (!rec) {
        log.info(`${label.padEnd(9)} not running (nothing started by infra.mjs)`);
        return;
      }
      log.act(`${name}: stopping (pid ${rec.pid})...`);
      const t0 = Date.now();
      const how = await killAndWait(rec.pid);
      removePid(name);
      log.act(`${name}: ${how === 'killed' ? 'killed after not stopping within 20 s' : 'stopped'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    };
    const jobs = [];
    if (want.includes('kafka')) jobs.push(stopJava('kafka', kafkaMarkers(), 'kafka'));
    if (want.includes('s3')) jobs.push(stopJava('s3proxy', s3Markers(), 's3proxy'));
    if (want.includes('postgres')) jobs.push(stopPostgres(log));
    await Promise.all(jobs);
  });
}

/**
 * @returns {Promise<Array<{ component: string, running: boolean, ours: boolean, pid: number|null, port: number, detail: string }>>}
 */
export async function infraStatus() {
  const cfg = infraConfig();
  const out = [];

  const k = ourProcess('kafka', kafkaMarkers());
  const kUp = await kafkaAnswers(cfg.kafka.port);
  out.push({
    component: 'kafka', running: kUp, ours: !!k, pid: k?.pid ?? null, port: cfg.kafka.port,
    detail: k
      ? `${HOST}:${cfg.kafka.port} (controller ${cfg.kafka.controllerPort})${kUp ? '' : ', process alive but not answering'}`
      : kUp ? `${HOST}:${cfg.kafka.port} (external broker)` : `${HOST}:${cfg.kafka.port}`,
  });

  const s = ourProcess('s3proxy', s3Markers());
  const sOpen = await portOpen(cfg.s3.port);
  const sUp = sOpen && (await s3Request(cfg.s3, 'GET', `/${cfg.s3.bucket}?list-type=2&max-keys=1`)).status === 200;
  out.push({
    component: 's3proxy', running: sUp, ours: !!s, pid: s?.pid ?? null, port: cfg.s3.port,
    detail: `${cfg.s3.endpoint} bucket ${cfg.s3.bucket}${s ? '' : sUp ? ' (external endpoint)' : ''}${(s || sOpen) && !sUp ? ', not answering a signed ListObjects' : ''}`,
  });

  const p = ourPg();
  const pOpen = await portOpen(cfg.pg.port);
  let pUp = false;
  if (pOpen) {
    const r = await run('pg_isready', ['-h', HOST, '-p', String(cfg.pg.port), '-t', '3']);
    pUp = r.error ? true : r.code === 0;
  }
  out.push({
    component: 'postgres', running: pUp, ours: !!p?.pid, pid: p?.pid ?? null, port: cfg.pg.port,
    detail: `${HOST}:${cfg.pg.port}${p?.pid ? ` (data ${rel(PG.dataDir)})` : pUp ? ' (external server)' : ''}`,
  });
  return out;
}

/** Runs Kafka's TopicCommand (kafka-topics) against our broker; resolves to its exit code. */
export async function kafkaTopics(args) {
  const cfg = infraConfig();
  const java = await checkJava();
  if (!libsComplete(LIBS.kafka)) await ensureLibs(LIBS.kafka, makeLogger(false));
  const full = args.includes('--bootstrap-server') ? args : ['--bootstrap-server', `${HOST}:${cfg.kafka.port}`, ...args];
  return new Promise((resolve) => {
    const child = spawn(java, ['-XX:TieredStopAtLevel=1', '-cp', classpath(LIBS.kafka), 'org.apache.kafka.tools.TopicCommand', ...full], { stdio: 'inherit' });
    child.on('exit', (code) => resolve(code ?? 1));
    child.on('error', () => resolve(1));
  });
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

const USAGE = `usage: node tools/infra/infra.mjs <command> [kafka|s3|postgres ...]

commands:
  start    start Kafka, S3Proxy and PostgreSQL (whatever is not running yet) and print connection values
  ensure   same as start, but prints nothing when everything is already up
  stop     stop what this script started (SIGTERM, SIGKILL after 20 s)
  status   one line per component; exit 1 if something is not running
  kafka-topics <args>   run Kafka's TopicCommand against the local broker (e.g. --list)

env: KAFKA_PORT (9092) KAFKA_CONTROLLER_PORT (9093) KAFKA_SECURE_PORT (SASL_SSL, off) KAFKA_DIR (.data/kafka) S3_PORT (9000) S3_BUCKET (platform-media)
     S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY PGPORT (5432) PGUSER (postgres) PG_DATABASES (platform,platform_test)`;

async function main(argv) {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'start':
      await ensureInfra({ quiet: false, only: rest });
      return 0;
    case 'ensure':
      await ensureInfra({ quiet: true, only: rest });
      return 0;
    case 'stop':
      await stopInfra({ only: rest });
      return 0;
    case 'status': {
      const rows = await infraStatus();
      const only = pickComponents(rest).map((c) => (c === 's3' ? 's3proxy' : c));
      let allUp = true;
      for (const r of rows.filter((x) => only.includes(x.component))) {
        allUp &&= r.running;
        const state = r.running ? 'running' : r.ours ? 'unhealthy' : 'stopped';
        const pid = r.pid ? `pid ${r.pid}` : r.running ? 'external' : '-';
        console.log(`${r.component.padEnd(9)} ${state.padEnd(9)} ${pid.padEnd(10)} ${r.detail}`);
      }
      return allUp ? 0 : 1;
    }
    case 'kafka-topics':
      return kafkaTopics(rest);
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return 0;
    default:
      console.error(cmd ? `unknown command "${cmd}"\n\n${USAGE}` : USAGE);
      return 1;
  }
}

function isMain() {
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err) => {
      console.error(`\nerror: ${err instanceof InfraError ? err.message : err?.stack || err}`);
      process.exitCode = 1;
    },
  );
}
