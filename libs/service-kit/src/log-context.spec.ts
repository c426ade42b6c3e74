import { context, propagation } from '@opentelemetry/api';
import {
  addLogFields,
  bindLogContext,
  childSpanContext,
  currentLogFields,
  currentTraceparent,
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  runWithLogContext,
} from './log-context';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';
const HEADER = `00-${TRACE}-${SPAN}-01`;

describe('traceparent', () => {
  it('parses a valid header and formats it back', () => {
    const span = parseTraceparent(HEADER)!;
    expect(span).toMatchObject({ traceId: TRACE, spanId: SPAN, traceFlags: 1, isRemote: true });
    expect(formatTraceparent(span)).toBe(HEADER);
    expect(parseTraceparent([HEADER, 'junk'])?.traceId).toBe(TRACE);
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['garbage', 'hello'],
    ['all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['all-zero span id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['short trace id', `00-${TRACE.slice(2)}-${SPAN}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
  ])('rejects a %s header', (_name, header) => {
    expect(parseTraceparent(header)).toBeNull();
  });

  it('generates 16-byte trace ids and 8-byte span ids in lower-case hex', () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
    expect(newTraceId()).not.toBe(newTraceId());
  });

  it('continues a valid parent with a new span, and starts a new trace for an invalid or missing one', () => {
    const child = childSpanContext(HEADER);
    expect(child.traceId).toBe(TRACE);
    expect(child.spanId).not.toBe(SPAN);
    expect(child.spanId).toMatch(/^[0-9a-f]{16}$/);
    for (const bad of [null, 'nonsense']) {
      const fresh = childSpanContext(bad);
      expect(fresh.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(fresh.traceId).not.toBe(TRACE);
      expect(fresh.traceFlags).toBe(1);
    }
  });
});

describe('log context', () => {
  it('is empty outside any unit of work', () => {
    expect(currentLogFields()).toEqual({});
    expect(currentTraceparent()).toBeUndefined();
  });

  it('merges fields over the enclosing context, across awaits, with the trace of the parent', async () => {
    await runWithLogContext(
      { requestId: 'req_1', correlationId: 'req_1' },
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        addLogFields({ appId: 'app_1' });
        expect(currentLogFields()).toMatchObject({ requestId: 'req_1', correlationId: 'req_1', appId: 'app_1', traceId: TRACE });
        const outer = currentLogFields().spanId;
        await runWithLogContext({ eventId: 'evt_1', appId: undefined }, async () => {
          const inner = currentLogFields();
          // Same trace, a span of its own; undefined fields keep the enclosing value.
          expect(inner).toMatchObject({ requestId: 'req_1', appId: 'app_1', eventId: 'evt_1', traceId: TRACE });
          expect(inner.spanId).not.toBe(outer);
          expect(currentTraceparent()).toBe(`00-${TRACE}-${inner.spanId}-01`);
        });
        expect(currentLogFields().eventId).toBeUndefined();
      },
      HEADER,
    );
    expect(currentLogFields()).toEqual({});
  });

  it('keeps concurrent units of work apart', async () => {
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        runWithLogContext({ requestId: id }, async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          return currentLogFields().requestId;
        }),
      ),
    );
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('binds callbacks that run later outside the context, and injects traceparent for the libraries', () => {
    let later: () => unknown = () => undefined;
    runWithLogContext(
      { requestId: 'req_2' },
      () => {
        later = bindLogContext(() => currentLogFields().requestId);
        const carrier: Record<string, string> = {};
        propagation.inject(context.active(), carrier);
        expect(carrier.traceparent).toBe(currentTraceparent());
      },
      null,
    );
    expect(later()).toBe('req_2');
  });
});
