#!/usr/bin/env node
// Local infrastructure launcher: Kafka (KRaft, single node), S3Proxy, PostgreSQL and an SMTP sink.
//
//   node tools/infra/infra.mjs start|stop|status|ensure [kafka|s3|postgres|mail ...]
//   node tools/infra/infra.mjs kafka-topics --list        (runs Kafka's TopicCommand)
//
// Node built-ins only, but for the SMTP sink (smtp-server, mailparser: dev dependencies). Everything
// it writes goes under <repo>/.data/. See tools/infra/README.md. One file per component:
// infra-config, process-utils, java-libs, kafka, s3proxy, postgres, mail-sink; this one starts,
// stops and reports them.
//
// Programmatic use (e.g. from a Jest globalSetup):
//   const { ensureInfra } = await import('../tools/infra/infra.mjs');
//   const env = await ensureInfra({ quiet: true });   // -> { KAFKA_BROKERS, S3_ENDPOINT, DATABASE_URL, ... }

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPONENTS, connectionValues, DATA, DIRS, HOST, infraConfig, InfraError, LIBS } from './infra-config.mjs';
import { ensureDir, killAndWait, makeLogger, ourProcess, portOpen, rel, removePid, run, withLock } from './process-utils.mjs';
import { checkJava, ensureLibs } from './java-libs.mjs';
import { kafkaAnswers, kafkaMarkers, kafkaTopics, startKafka } from './kafka.mjs';
import { s3Markers, s3Request, startS3 } from './s3proxy.mjs';
import { ourPg, PG, startPostgres, stopPostgres } from './postgres.mjs';
import { mailSinkAnswers, mailSinkMarkers, startMailSink } from './mail-sink.mjs';

// What other tools import from here.
export { infraConfig } from './infra-config.mjs';
export { kafkaAnswers, kafkaTopics } from './kafka.mjs';
export { signS3Request, s3Request } from './s3proxy.mjs';

function pickComponents(only) {
  if (!only || only.length === 0) return COMPONENTS;
  const alias = { s3proxy: 's3', pg: 'postgres', postgresql: 'postgres', smtp: 'mail' };
  const list = only.map((c) => alias[c] || c);
  for (const c of list) {
    if (!COMPONENTS.includes(c)) throw new InfraError(`unknown component "${c}" (expected: ${COMPONENTS.join(', ')})`);
  }
  return COMPONENTS.filter((c) => list.includes(c));
}

/**
 * Starts whatever is missing and waits until it is ready. Idempotent.
 * @param {{ quiet?: boolean, only?: Array<'kafka'|'s3'|'postgres'|'mail'> }} [opts]
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

    const tasks = { kafka: startKafka, s3: startS3, postgres: startPostgres, mail: startMailSink };
    const results = await Promise.allSettled(want.map((c) => tasks[c](cfg, log)));
    const errors = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    if (errors.length) {
      const msg = errors.map((e) => (e instanceof InfraError ? e.message : e?.stack || String(e))).join('\n');
      const err = new InfraError(msg);
      throw err;
    }
    const started = want.filter((c, i) => /** @type {PromiseFulfilledResult<{ started: boolean }>} */ (results[i]).value.started);
    const values = connectionValues(cfg);
    if (!quiet || started.length) {
      log.act('');
      for (const [k, v] of Object.entries(values)) {
        if (k === 'S3_SECRET_ACCESS_KEY' || k === 'S3_REGION' || k === 'S3_FORCE_PATH_STYLE') continue;
        if (k.startsWith('KAFKA') && !want.includes('kafka')) continue;
        if (k.startsWith('S3') && !want.includes('s3')) continue;
        if (k.includes('DATABASE') && !want.includes('postgres')) continue;
        if ((k === 'SMTP_URL' || k === 'MAIL_SINK_URL') && !want.includes('mail')) continue;
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
 * @param {{ quiet?: boolean, only?: Array<'kafka'|'s3'|'postgres'|'mail'> }} [opts]
 */
export async function stopInfra({ quiet = false, only } = {}) {
  const log = makeLogger(quiet);
  const want = pickComponents(only);
  ensureDir(DIRS.run);
  await withLock(log, async () => {
    const stopProcess = async (name, markers, label) => {
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
    if (want.includes('kafka')) jobs.push(stopProcess('kafka', kafkaMarkers(), 'kafka'));
    if (want.includes('s3')) jobs.push(stopProcess('s3proxy', s3Markers(), 's3proxy'));
    if (want.includes('mail')) jobs.push(stopProcess('mail-sink', mailSinkMarkers(), 'mail'));
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
    component: 'kafka',
    running: kUp,
    ours: !!k,
    pid: k?.pid ?? null,
    port: cfg.kafka.port,
    detail: k
      ? `${HOST}:${cfg.kafka.port} (controller ${cfg.kafka.controllerPort})${kUp ? '' : ', process alive but not answering'}`
      : kUp
        ? `${HOST}:${cfg.kafka.port} (external broker)`
        : `${HOST}:${cfg.kafka.port}`,
  });

  const s = ourProcess('s3proxy', s3Markers());
  const sOpen = await portOpen(cfg.s3.port);
  const sUp = sOpen && (await s3Request(cfg.s3, 'GET', `/${cfg.s3.bucket}?list-type=2&max-keys=1`)).status === 200;
  out.push({
    component: 's3proxy',
    running: sUp,
    ours: !!s,
    pid: s?.pid ?? null,
    port: cfg.s3.port,
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
    component: 'postgres',
    running: pUp,
    ours: !!p?.pid,
    pid: p?.pid ?? null,
    port: cfg.pg.port,
    detail: `${HOST}:${cfg.pg.port}${p?.pid ? ` (data ${rel(PG.dataDir)})` : pUp ? ' (external server)' : ''}`,
  });

  const m = ourProcess('mail-sink', mailSinkMarkers());
  const mUp = await mailSinkAnswers(cfg.mail.httpPort);
  out.push({
    component: 'mail',
    running: mUp,
    ours: !!m,
    pid: m?.pid ?? null,
    port: cfg.mail.smtpPort,
    detail: `SMTP ${HOST}:${cfg.mail.smtpPort}, list http://${HOST}:${cfg.mail.httpPort}/messages${m ? '' : mUp ? ' (external sink)' : ''}`,
  });
  return out;
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------

const USAGE = `usage: node tools/infra/infra.mjs <command> [kafka|s3|postgres|mail ...]

commands:
  start    start Kafka, S3Proxy, PostgreSQL and the SMTP sink (whatever is not running yet) and print connection values
  ensure   same as start, but prints nothing when everything is already up
  stop     stop what this script started (SIGTERM, SIGKILL after 20 s)
  status   one line per component; exit 1 if something is not running
  kafka-topics <args>   run Kafka's TopicCommand against the local broker (e.g. --list)

env: KAFKA_PORT (9092) KAFKA_CONTROLLER_PORT (9093) KAFKA_SECURE_PORT (SASL_SSL, off) KAFKA_DIR (.data/kafka) S3_PORT (9000) S3_BUCKET (platform-media)
     S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY PGPORT (5432) PGUSER (postgres) PG_DATABASES (platform,platform_test)
     MAIL_SMTP_PORT (1025) MAIL_HTTP_PORT (1080)`;

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
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      console.error(`\nerror: ${err instanceof InfraError ? err.message : err?.stack || err}`);
      process.exitCode = 1;
    },
  );
}
