/** Closed-loop load with autocannon over one gateway or several (replicas), reported as one run. */
import autocannon from 'autocannon';
import { percentile } from './latency.mjs';

/** One autocannon per URL at once, the connections split between them; their results as one. */
export async function spreadOver(urls, options, onResponse) {
  /** @type {number[]} */
  const times = [];
  const runs = urls.map((url, i) => {
    const connections = Math.floor(options.connections / urls.length) + (i < options.connections % urls.length ? 1 : 0);
    const instance = autocannon({ ...options, url, connections });
    instance.on('response', (_client, status, _bytes, responseTime) => {
      onResponse(status);
      if (urls.length > 1) times.push(responseTime);
    });
    return instance;
  });
  const results = await Promise.all(runs);
  if (urls.length === 1) {
    const [r] = results;
    return {
      requests: r.requests.total,
      requestsPerSecond: Math.round(r.requests.average),
      latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
      failed: r.non2xx + r.errors + r.timeouts,
    };
  }
  times.sort((a, b) => a - b);
  const at = (p) => Math.round(percentile(times, p) ?? 0);
  return {
    requests: results.reduce((sum, r) => sum + r.requests.total, 0),
    requestsPerSecond: results.reduce((sum, r) => sum + Math.round(r.requests.average), 0),
    latencyMs: { p50: at(50), p90: at(90), p99: at(99), max: Math.round(times.at(-1) ?? 0) },
    failed: results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
  };
}
