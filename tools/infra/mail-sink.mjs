/**
 * The local SMTP sink (libs/testing/src/mail-sink.js) as an infrastructure component: one detached
 * Node process on MAIL_SMTP_PORT (SMTP) and MAIL_HTTP_PORT (the list the admin API reads), keeping
 * what it catches under .data/mail.
 */
import path from 'node:path';
import { DATA, DIRS, HOST, InfraError, MAIL_READY_TIMEOUT_MS, SCRIPT_DIR } from './infra-config.mjs';
import { ensureDir, freshLog, indent, ourProcess, portOpen, portTakenError, rel, sleep, spawnDetached, tailFile, writePid } from './process-utils.mjs';

const SERVER = path.join(SCRIPT_DIR, 'mail-sink-server.mjs');

export const mailSinkMarkers = () => ['mail-sink-server.mjs'];

/** Whether a mail sink answers its list on `httpPort`. */
export async function mailSinkAnswers(httpPort) {
  try {
    const res = await fetch(`http://${HOST}:${httpPort}/healthz`, { signal: AbortSignal.timeout(1000) });
    const body = /** @type {{ status?: string }} */ (await res.json());
    return res.ok && body.status === 'ok';
  } catch {
    return false;
  }
}

export async function startMailSink(cfg, log) {
  const t0 = Date.now();
  const { smtpPort, httpPort } = cfg.mail;
  const ours = ourProcess('mail-sink', mailSinkMarkers(), log);
  if (await mailSinkAnswers(httpPort)) {
    log.info(`mail      already running${ours ? ` (pid ${ours.pid})` : ''}: SMTP ${HOST}:${smtpPort}, list http://${HOST}:${httpPort}`);
    return { started: false, external: !ours };
  }
  for (const [port, name] of [
    [smtpPort, 'MAIL_SMTP_PORT'],
    [httpPort, 'MAIL_HTTP_PORT'],
  ]) {
    if (await portOpen(port)) throw await portTakenError('mail', port, name, 'and it is not the mail sink');
  }
  ensureDir(DIRS.mail);
  const logFile = freshLog('mail-sink');
  log.act(`mail: starting the SMTP sink on ${HOST}:${smtpPort} (data ${rel(DIRS.mail)}), log ${rel(logFile)}`);
  const child = spawnDetached(process.execPath, [SERVER, DIRS.mail, String(smtpPort), String(httpPort)], logFile, DATA);
  if (!child.pid) throw new InfraError('mail: could not start the SMTP sink');
  writePid('mail-sink', { pid: child.pid, port: smtpPort, startedAt: new Date().toISOString() });
  while (Date.now() - t0 < MAIL_READY_TIMEOUT_MS) {
    if (await mailSinkAnswers(httpPort)) {
      log.act(`mail: ready, SMTP ${HOST}:${smtpPort}, list http://${HOST}:${httpPort} (pid ${child.pid}, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      return { started: true, external: false };
    }
    if (child.state.exited) break;
    await sleep(100);
  }
  throw new InfraError(`mail: the SMTP sink is not ready. Last lines of ${rel(logFile)}:\n${indent(tailFile(logFile))}`);
}
