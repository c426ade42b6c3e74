/** Where each app of a bench stack keeps its memory, from its own /metrics (prom-client's default metrics). */
import { healthPort, stackPorts } from '../dev/stack.mjs';

const MB = 1024 * 1024;
const FIELDS = {
  rssMb: 'process_resident_memory_bytes',
  heapUsedMb: 'nodejs_heap_size_used_bytes',
  heapTotalMb: 'nodejs_heap_size_total_bytes',
  externalMb: 'nodejs_external_memory_bytes',
};

/**
 * Every app's memory now: resident set, V8 heap used and reserved, and memory outside the heap that
 * V8 knows of (Buffers, TLS). What the RSS holds beyond heap and external is native: the allocator's
 * arenas, code, stacks. `{ app: { rssMb, heapUsedMb, heapTotalMb, externalMb } }`.
 * @param {number} basePort
 * @returns {Promise<Record<string, Record<string, number>>>}
 */
export async function stackMemory(basePort) {
  const ports = stackPorts(basePort);
  /** @type {Record<string, Record<string, number>>} */
  const report = {};
  for (const [app, port] of Object.entries(ports)) {
    // The gateway serves /metrics on its admin port, the console on its internal port.
    const url = `http://127.0.0.1:${healthPort(app, port)}/metrics`;
    try {
      const text = await (await fetch(url)).text();
      report[app] = Object.fromEntries(Object.entries(FIELDS).map(([field, metric]) => [field, Math.round((metricValue(text, metric) / MB) * 10) / 10]));
    } catch {
      // An app that does not answer (stopped, restarting) has no figure.
      report[app] = {};
    }
  }
  return report;
}

/** The first sample of `metric` in a Prometheus text page (these are unlabelled gauges). */
function metricValue(text, metric) {
  const match = text.match(new RegExp(`^${metric}(?:\\{[^}]*\\})? ([0-9.e+-]+)`, 'm'));
  return match ? Number(match[1]) : NaN;
}

/**
 * Samples `stackMemory` every `everyMs` until stopped; the stop function returns each app's peak RSS.
 * @param {number} basePort
 * @param {number} everyMs
 */
export function watchMemory(basePort, everyMs = 5_000) {
  /** @type {Record<string, number>} */
  const peaks = {};
  let sampling = Promise.resolve();
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      for (const [app, memory] of Object.entries(await stackMemory(basePort))) {
        if (typeof memory.rssMb === 'number' && !(memory.rssMb <= (peaks[app] ?? 0))) peaks[app] = memory.rssMb;
      }
    });
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await sampling;
    return peaks;
  };
}

/**
 * Sums every sample of a counter (all label sets) in a Prometheus text page.
 * @param {string} text
 * @param {string} metric
 */
export function counterTotal(text, metric) {
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${metric}(?:\\{[^}]*\\})? ([0-9.e+-]+)`, 'gm'))) total += Number(match[1]);
  return total;
}
