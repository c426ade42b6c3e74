import { SpanKind } from '@opentelemetry/api';
import { Controller, Inject, type Type } from '@nestjs/common';
import { Ctx, KafkaContext, MessagePattern, Payload } from '@nestjs/microservices';
import { rpcTopic, type RpcRequest, type RpcService } from '#platform/contracts';
import { RpcDispatcher } from '#platform/kafka';
import { runWithLogContext } from './log-context';
import { log, logEnabled } from './logger';
import { ServiceRuntime } from './service-runtime';

/**
 * Serves `<service>.rpc` (each request in its caller's log and trace context); requests whose caller
 * already gave up are answered as expired without being run. How long each request waited before
 * its handling and how long the handling took are in the service's metrics, so a caller's time (the
 * gateway's `rpc_client_duration_seconds`) can be split into the way there, the work and the way back.
 */
export function rpcControllerFor(service: RpcService): Type<unknown> {
  @Controller()
  class RpcController {
    constructor(
      @Inject(RpcDispatcher) private readonly dispatcher: RpcDispatcher,
      @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    ) {}

    @MessagePattern(rpcTopic(service))
    async handle(@Payload() request: RpcRequest & { deadline?: number }, @Ctx() kafka: KafkaContext) {
      const op = typeof request?.op === 'string' && this.dispatcher.handles(request.op) ? request.op : 'unknown';
      const startedAt = Date.now();
      // Real time on both sides (the test clock does not move Kafka's timestamps); a skewed caller clock shifts it.
      const producedAt = Number(kafka.getMessage().timestamp);
      const waitMs = Number.isFinite(producedAt) ? Math.max(0, startedAt - producedAt) : null;
      if (waitMs !== null) this.runtime.metrics.rpcServerWait.observe({ op }, waitMs / 1000);
      if (typeof request?.deadline === 'number' && request.deadline < startedAt) {
        this.runtime.metrics.rpcServerDuration.observe({ op, outcome: 'expired' }, 0);
        return { ok: false, error: { code: 'internal_error', message: 'The request expired before it was handled.' } };
      }
      const caller = request?.caller;
      // The request's log context (its request id is the correlation id of what it causes) and a span continuing the caller's trace.
      return runWithLogContext(
        { requestId: caller?.requestId, correlationId: caller?.requestId, appId: caller?.appId },
        async () => {
          const started = performance.now();
          const reply = await this.dispatcher.dispatch(request);
          const ms = performance.now() - started;
          this.runtime.metrics.rpcServerDuration.observe({ op, outcome: reply.ok ? 'ok' : 'refused' }, ms / 1000);
          if (logEnabled('debug')) log('debug', 'rpc handled', { op: request.op, ok: reply.ok, ms: Math.round(ms * 10) / 10, waitMs });
          return reply;
        },
        headerText(kafka.getMessage().headers?.traceparent),
        { name: `rpc ${op}`, kind: SpanKind.SERVER, attributes: { 'rpc.system': 'kafka', 'rpc.method': op } },
      );
    }
  }
  return RpcController;
}

function headerText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return Buffer.isBuffer(value) ? value.toString('utf8') : null;
}
