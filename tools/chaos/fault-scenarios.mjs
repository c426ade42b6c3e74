/**
 * The faults of the campaign. Each injects its fault into a running ChaosStack and resolves with when
 * the fault began and ended: for a kill -9 both are the kill (the supervisor's restart is the
 * platform's recovery, as Kubernetes' would be); for the broker and Postgres, the end is when the
 * process answers again.
 */
import { APP_NAMES } from './chaos-stack.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function scenarioNames() {
  return [...APP_NAMES.map((app) => `kill-${app}`), 'broker-stop', 'postgres-restart', 'postgres-stop', 'noisy-neighbour'];
}

/**
 * Resolves with { faultStart, faultEnd, readyAgainAt? }; `faultSeconds` is how long a stop lasts.
 * The noisy neighbour's endpoints keep failing after its fault window, until the scenario stops it.
 * @param {string} name
 * @param {any} stack
 * @param {{ faultSeconds: number, noisy?: { neighbour: import('./noisy-neighbour.mjs').NoisyNeighbour, webhooks: any, rate: number } }} options
 */
export async function injectFault(name, stack, { faultSeconds, noisy }) {
  if (name === 'noisy-neighbour') {
    if (!noisy) throw new Error('the noisy-neighbour scenario needs its neighbour seeded');
    const faultStart = Date.now();
    noisy.neighbour.start(noisy.webhooks, noisy.rate);
    await sleep(faultSeconds * 1000);
    return { faultStart, faultEnd: Date.now() };
  }
  if (name.startsWith('kill-')) {
    const app = name.slice('kill-'.length);
    if (!APP_NAMES.includes(app)) throw new Error(`unknown app in scenario ${name}`);
    const pid = stack.pids()[app];
    process.kill(pid, 'SIGKILL');
    const at = Date.now();
    return { faultStart: at, faultEnd: at, readyAgainAt: await restartedAndReady(stack, app, pid) };
  }
  if (name === 'broker-stop') {
    const faultStart = Date.now();
    await stack.stopBroker();
    await sleep(faultSeconds * 1000);
    await stack.startBroker();
    return { faultStart, faultEnd: Date.now() };
  }
  // ThrowawayPostgres runs pg_ctl synchronously: the load's event loop pauses for the stop and the
  // start (about a second each); sends due meanwhile start as soon as it runs again.
  if (name === 'postgres-restart') {
    const faultStart = Date.now();
    stack.postgres.stop('fast');
    stack.postgres.start();
    return { faultStart, faultEnd: Date.now() };
  }
  if (name === 'postgres-stop') {
    const faultStart = Date.now();
    stack.postgres.stop('fast');
    await sleep(faultSeconds * 1000);
    stack.postgres.start();
    return { faultStart, faultEnd: Date.now() };
  }
  throw new Error(`unknown scenario ${name} (known: ${scenarioNames().join(', ')})`);
}

/** When the supervisor's new process of `app` first answered /readyz 200 (null past 120 s). */
async function restartedAndReady(stack, app, oldPid) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    let pid = oldPid;
    try {
      pid = stack.pids()[app];
    } catch {
      // the pid file is being replaced
    }
    if (pid !== oldPid && (await stack.isReady(app))) return Date.now();
    await sleep(100);
  }
  return null;
}

/** Waits until every app answers /readyz 200, polling; false past the deadline. */
export async function allReady(stack, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await Promise.all(APP_NAMES.map((app) => stack.isReady(app)));
    if (ready.every(Boolean)) return true;
    await sleep(250);
  }
  return false;
}
