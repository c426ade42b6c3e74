/**
 * Imported first by every app's main.ts: when traces are exported (OTEL_EXPORTER_OTLP_ENDPOINT),
 * Postgres statements become spans. The pg instrumentation patches `pg` as it is required, so it
 * must be registered before anything loads `pg`; that is this module's only job (the provider and
 * exporter start with the service, see service-kit's trace-export.ts).
 */
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { redactSqlLiterals } from './sql-redaction';

export { redactSqlLiterals };

/** The OTLP traces URL from the standard variables, or null when export is off. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string | null {
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}

if (otlpTracesUrl(process.env)) {
  // Only statements run inside a unit of work: the relays' and sweepers' polls would be noise.
  const instrumentation = new PgInstrumentation({
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
    // The statement without its literals: values never leave the process in a span.
    requestHook: (span, { query }) => {
      const text = redactSqlLiterals(query.text);
      span.setAttribute('db.query.text', text);
      span.setAttribute('db.statement', text);
    },
  });
  registerInstrumentations({ instrumentations: [instrumentation] });
}
