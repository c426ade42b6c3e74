/**
 * Keeps the apps of a stack running as Kubernetes would: an app that exits is started again at once
 * the first time, then after a delay that doubles from 1 s to 30 s while it keeps exiting, back to
 * at once when it has stayed up for a minute. Only stop() ends the restarts.
 */
import { appendFileSync } from 'node:fs';
import { appLogFile, spawnApp, stopChildren } from './stack.mjs';

export const FIRST_DELAY_MS = 1_000;
export const MAX_DELAY_MS = 30_000;
export const RESET_AFTER_MS = 60_000;

/**
 * The delay before restart number `attempt` (0 for the first since the app last stayed up): none for
 * the first, since a replica that crashed once is most likely healthy again and every second counts
 * toward its readiness; then backing off, so a crash loop does not spin.
 */
export function restartDelayMs(attempt) {
  return attempt === 0 ? 0 : Math.min(FIRST_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS);
}

export class Supervisor {
  /**
   * `children` (app → child process) is updated in place at each restart; `onRestart` runs after
   * each, with the new child (to record its pid).
   * @param {{ children: Record<string, import('node:child_process').ChildProcess>, ports: Record<string, number>, env: NodeJS.ProcessEnv,
   *   appEnv?: Record<string, NodeJS.ProcessEnv>, tag: string, logDir: string,
   *   onRestart?: (app: string, child: import('node:child_process').ChildProcess) => void, log?: (line: string) => void }} options
   */
  constructor({ children, ports, env, appEnv = {}, tag, logDir, onRestart = () => {}, log = (line) => console.error(line) }) {
    this.children = children;
    this.ports = ports;
    this.env = env;
    this.appEnv = appEnv;
    this.tag = tag;
    this.logDir = logDir;
    this.onRestart = onRestart;
    this.log = log;
    this.stopping = false;
    this.timers = new Set();
    this.attempts = {};
    this.startedAt = {};
    for (const [app, child] of Object.entries(children)) this.watch(app, child);
  }

  watch(app, child) {
    this.startedAt[app] = Date.now();
    child.once('exit', (code, signal) => {
      if (this.stopping) return;
      if (Date.now() - this.startedAt[app] >= RESET_AFTER_MS) this.attempts[app] = 0;
      const attempt = this.attempts[app] ?? 0;
      this.attempts[app] = attempt + 1;
      const delay = restartDelayMs(attempt);
      const line = `${app} exited (${signal ?? `code ${code}`}); restarting in ${delay / 1000} s (restart ${attempt + 1} in a row)`;
      this.log(`${line}; see ${appLogFile(this.tag, app, this.logDir)}`);
      appendFileSync(appLogFile(this.tag, app, this.logDir), `${new Date().toISOString()} supervisor: ${line}\n`);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.stopping) return;
        const next = spawnApp(app, { port: this.ports[app], env: { ...this.env, ...this.appEnv[app] }, logDir: this.logDir, tag: this.tag, append: true });
        this.children[app] = next;
        this.watch(app, next);
        this.onRestart(app, next);
      }, delay);
      this.timers.add(timer);
    });
  }

  /** Ends the restarts and stops every app. */
  async stop() {
    this.stopping = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await stopChildren(Object.values(this.children));
  }
}
