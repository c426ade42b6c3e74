import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RpcRequestOf } from '#platform/contracts';
import { RpcClient } from './rpc-client';

// A client never connected: a call fails at once (no producer), which is all these tests need.
const client = () => new RpcClient({ brokers: ['127.0.0.1:1'], instanceId: 'spec', services: ['messaging'], timeoutMs: 1_000 });
const request: RpcRequestOf<'messaging', 'messages.get'> = { appId: 'app_1', messageId: 'msg_1' };
const caller = { requestId: 'req_1' };

describe('RpcClient spans', () => {
  afterEach(() => {
    trace.disable();
    jest.restoreAllMocks();
  });

  it('makes no span and enters no context of its own while no tracer provider is registered', async () => {
    const entered = jest.spyOn(context, 'with');
    await expect(client().call('messaging', 'messages.get', caller, request)).rejects.toMatchObject({ code: 'internal_error' });
    expect(entered).not.toHaveBeenCalled();
  });

  it('records a client span for each call once a tracer provider is registered', async () => {
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await expect(client().call('messaging', 'messages.get', caller, request)).rejects.toMatchObject({ code: 'internal_error' });
    expect(exporter.getFinishedSpans().map((s) => ({ name: s.name, kind: s.kind, status: s.status.code, method: s.attributes['rpc.method'] }))).toEqual([
      { name: 'messaging messages.get', kind: SpanKind.CLIENT, status: SpanStatusCode.ERROR, method: 'messages.get' },
    ]);
  });
});
