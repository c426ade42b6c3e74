/**
 * kafkajs 2.2.4 arms `setTimeout(throttledUntil - Date.now())` with throttledUntil = -1 after every
 * response (RequestQueue.scheduleCheckPendingRequests), so on Node >= 24 the first request of a
 * process prints a harmless TimeoutNegativeWarning. The apps drop it in libs/kafka (kafka-client.ts);
 * the tools that use kafkajs directly (namespace reset of tests and benchmarks, platformctl) are
 * plain .mjs that must run without dist/, hence this copy of that filter.
 */
let silenced = false;

export function silenceKafkaJsTimeoutNegativeWarning() {
  if (silenced) return;
  silenced = true;
  const original = process.emitWarning.bind(process);
  process.emitWarning = (warning, ...rest) => {
    const name = warning instanceof Error ? warning.name : typeof rest[0] === 'string' ? rest[0] : (rest[0]?.type ?? '');
    if (name === 'TimeoutNegativeWarning') return;
    original(warning, ...rest);
  };
}
