import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type SpanContext,
  type SpanKind,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { randomHex } from '#platform/contracts';
import { exportTracer } from './trace-export';

/**
 * Request-scoped fields every log line carries, and the W3C trace context (docs/adr/0169-traces.md).
 * Both live in the OpenTelemetry context (one AsyncLocalStorage): the libraries below service-kit
 * (event-store, kafka) read and write `traceparent` through the OpenTelemetry API alone, and the
 * logger's mixin reads the fields and the span context of the current unit of work.
 * Span ids are made here, one per unit of work (an HTTP request, an RPC request, an event applied, a
 * webhook attempt), so a trace id follows one request everywhere; when trace export is on
 * (trace-export.ts), a unit of work given a span name is also a real span, exported.
 */
export interface LogFields {
  requestId?: string;
  correlationId?: string;
  appId?: string;
  eventId?: string;
  deliveryId?: string;
  [field: string]: unknown;
}

const LOG_FIELDS = createContextKey('platform.log-fields');
const propagator = new W3CTraceContextPropagator();
let installed = false;

/** Registers the async context manager and the W3C propagator as the OpenTelemetry globals (once per process). */
export function installTraceContext(): void {
  if (installed) return;
  installed = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(propagator);
}
installTraceContext();

/** 16 random bytes as 32 hex digits, never all zeros. */
export function newTraceId(): string {
  for (;;) {
    const id = randomHex(16);
    if (!/^0+$/.test(id)) return id;
  }
}

/** 8 random bytes as 16 hex digits, never all zeros. */
export function newSpanId(): string {
  for (;;) {
    const id = randomHex(8);
    if (!/^0+$/.test(id)) return id;
  }
}

/** The span context of a `traceparent` header value, or null when it is missing or invalid. */
export function parseTraceparent(header: string | string[] | null | undefined): SpanContext | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (typeof value !== 'string' || value.length === 0) return null;
  const extracted = trace.getSpanContext(
    propagator.extract(context.active(), { traceparent: value }, { get: (c, k) => c[k as 'traceparent'], keys: (c) => Object.keys(c) }),
  );
  return extracted && trace.isSpanContextValid(extracted) ? extracted : null;
}

/** `00-<trace id>-<span id>-<flags>`. */
export function formatTraceparent(span: Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'>): string {
  return `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/**
 * A new span for a unit of work: a child of `parent` when it is a valid traceparent, else of the
 * current span when `parent` is undefined and there is one, else the root of a new trace.
 */
export function childSpanContext(parent: string | string[] | null | undefined): SpanContext {
  const from = parent === undefined ? trace.getSpanContext(context.active()) : parseTraceparent(parent);
  if (from && trace.isSpanContextValid(from)) return { traceId: from.traceId, spanId: newSpanId(), traceFlags: from.traceFlags, isRemote: false };
  return { traceId: newTraceId(), spanId: newSpanId(), traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

/** What an exported span of a unit of work is called and says. */
export interface UnitOfWork {
  name: string;
  kind: SpanKind;
  attributes?: Attributes;
}

/**
 * Runs `fn` with `fields` merged over the current log fields and in a new span (see
 * childSpanContext for `traceparent`). Undefined and null fields are left out. With trace export on
 * and a `unit` given, the span is recorded and ends when `fn`'s result settles.
 */
export function runWithLogContext<T>(fields: LogFields, fn: () => T, traceparent?: string | string[] | null, unit?: UnitOfWork): T {
  const active = context.active();
  const merged: LogFields = { ...(active.getValue(LOG_FIELDS) as LogFields | undefined) };
  for (const key in fields) if (fields[key] !== undefined && fields[key] !== null) merged[key] = fields[key];
  const tracer = unit ? exportTracer() : null;
  if (!tracer || !unit) return context.with(trace.setSpanContext(active.setValue(LOG_FIELDS, merged), childSpanContext(traceparent)), fn);
  const span = tracer.startSpan(unit.name, { kind: unit.kind, attributes: unit.attributes }, parentContext(active, traceparent));
  const ctx = trace.setSpan(active.setValue(LOG_FIELDS, merged), span);
  const end = (error?: unknown) => {
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
    span.end();
  };
  try {
    const result = context.with(ctx, fn);
    if (result instanceof Promise)
      return result.then(
        (value) => (end(), value),
        (error) => (end(error), Promise.reject(error)),
      ) as T;
    end();
    return result;
  } catch (error) {
    end(error);
    throw error;
  }
}

/** The parent of a new exported span, chosen as childSpanContext chooses it. */
function parentContext(active: Context, traceparent: string | string[] | null | undefined): Context {
  if (traceparent === undefined) return active;
  const parent = parseTraceparent(traceparent);
  return parent ? trace.setSpanContext(active, { ...parent, isRemote: true }) : trace.deleteSpan(ROOT_CONTEXT);
}

/** Renames the current exported span (e.g. once the route is known) and adds attributes; nothing without export. */
export function nameCurrentSpan(name: string, attributes: Attributes = {}): void {
  const span = exportTracer() ? trace.getActiveSpan() : undefined;
  span?.updateName(name);
  span?.setAttributes(attributes);
}

/** Adds fields to the current unit of work's context (e.g. the app id once the API key is known). */
export function addLogFields(fields: LogFields): void {
  const current = context.active().getValue(LOG_FIELDS) as LogFields | undefined;
  if (!current) return;
  for (const key in fields) if (fields[key] !== undefined && fields[key] !== null) current[key] = fields[key];
}

/** The fields and trace/span ids of the current context, as every log line shows them. */
export function currentLogFields(): LogFields & { traceId?: string; spanId?: string } {
  const active = context.active();
  const fields = active.getValue(LOG_FIELDS) as LogFields | undefined;
  const span = trace.getSpanContext(active);
  if (!fields && !span) return {};
  return span ? { ...fields, traceId: span.traceId, spanId: span.spanId } : { ...fields };
}

/** The traceparent of the current span, if any (for response headers). */
export function currentTraceparent(): string | undefined {
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? formatTraceparent(span) : undefined;
}

/** `fn` bound to the current context, for callbacks that run outside it (e.g. a response's 'finish'). */
export function bindLogContext<F extends (...args: never[]) => unknown>(fn: F): F {
  return context.bind(context.active(), fn);
}
