import { trace, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { otlpTracesUrl } from '#platform/tracing';

export { otlpTracesUrl };

/**
 * Spans that leave the process (architecture section 9: OTEL_EXPORTER_OTLP_ENDPOINT). Off unless the
 * standard variables name a collector: then each unit of work that runWithLogContext starts with a
 * span name (HTTP request, RPC request, applied event, webhook attempt, outbox publish, transaction)
 * is a real span exported over OTLP/HTTP (JSON) in batches. Ids, parents and propagation are the
 * same with or without export, so logs and traces always agree.
 */
let provider: BasicTracerProvider | null = null;
let tracer: Tracer | null = null;

/** Starts exporting this process's spans when the environment names a collector (once per process). */
export function startTraceExport(serviceName: string, env: NodeJS.ProcessEnv = process.env): void {
  const url = otlpTracesUrl(env);
  if (!url || provider) return;
  provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 500, maxExportBatchSize: 512 })],
  });
  // Global too, so libraries below service-kit (the RPC client) record spans through the API alone.
  trace.setGlobalTracerProvider(provider);
  tracer = provider.getTracer('platform');
}

/** The tracer of exported spans, or null when export is off. */
export function exportTracer(): Tracer | null {
  return tracer;
}

/** Sends what is buffered and stops (on shutdown). */
export async function stopTraceExport(): Promise<void> {
  const stopping = provider;
  provider = null;
  tracer = null;
  await stopping?.shutdown().catch(() => undefined);
}
