import type { ServiceRuntime } from './service-runtime';

/** What /readyz answers: 200 when Postgres, Kafka and every consumer are ready, else 503, with the checks. */
export async function readinessAnswer(runtime: ServiceRuntime): Promise<{ status: number; body: Record<string, unknown> }> {
  const readiness = await runtime.readiness();
  return { status: readiness.ok ? 200 : 503, body: { ...readiness, service: runtime.config.serviceName } };
}

/** What /metrics answers: the registry in Prometheus' text format, the outbox gauges read afresh. */
export async function metricsText(runtime: ServiceRuntime): Promise<string> {
  await runtime.outboxBacklog().catch(() => undefined);
  return runtime.metrics.registry.metrics();
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4';
