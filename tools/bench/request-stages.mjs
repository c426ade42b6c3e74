/**
 * Where each POST /messages spent its time, request by request, from the bench stack's logs: the
 * gateway's access line (end time and duration) joined by request id with messaging's debug line
 * for the `messages.send` call (end time, handling time, and the wait from the gateway's produce to
 * the start of handling). Times are the log lines' wall clock on this one machine (1 ms).
 * - there: the gateway's start to its produce of the request (key and body checks, produce);
 * - queued: the produce to the start of handling in messaging (Kafka, fetch, the server's queue);
 * - handling: messaging's decision, append and commit;
 * - back: the end of handling to the gateway's answer (reply produce and fetch, write).
 * The histograms give the same split as means; this gives the tail: whether the slowest requests
 * were slow in one hop or in all of them at once.
 */
import { readFileSync } from 'node:fs';

const STAGES = ['total', 'there', 'queued', 'handling', 'back'];

function jsonLines(file) {
  const lines = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      // A line cut off by the stop.
    }
  }
  return lines;
}

/** Stage percentiles and the mean of each stage over the slowest 1 % of the sends that ended in [fromMs, toMs]. */
export function requestStages(gatewayLog, messagingLog, fromMs, toMs) {
  const handled = new Map();
  for (const line of jsonLines(messagingLog)) {
    if (line.msg === 'rpc handled' && line.op === 'messages.send' && typeof line.waitMs === 'number') handled.set(line.requestId, line);
  }
  const rows = [];
  for (const line of jsonLines(gatewayLog)) {
    if (line.msg !== 'request' || line.method !== 'POST' || !line.route?.endsWith('/messages')) continue;
    const end = Date.parse(line.time);
    const call = handled.get(line.requestId);
    if (!call || end < fromMs || end > toMs) continue;
    const handlingEnd = Date.parse(call.time);
    const produced = handlingEnd - call.ms - call.waitMs;
    rows.push({ total: line.ms, there: produced - (end - line.ms), queued: call.waitMs, handling: call.ms, back: end - handlingEnd });
  }
  if (rows.length === 0) return null;
  const at = (stage, p) => {
    const sorted = rows.map((row) => row[stage]).sort((a, b) => a - b);
    return round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]);
  };
  const slowest = [...rows].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(rows.length / 100)));
  return {
    requests: rows.length,
    ...Object.fromEntries(['p50', 'p90', 'p99'].map((p) => [p, Object.fromEntries(STAGES.map((stage) => [stage, at(stage, Number(p.slice(1)) / 100)]))])),
    slowestPercentMean: Object.fromEntries(STAGES.map((stage) => [stage, round(slowest.reduce((sum, row) => sum + row[stage], 0) / slowest.length)])),
  };
}

function round(ms) {
  return Math.round(ms * 10) / 10;
}
