import { Controller, Inject, type Type } from '@nestjs/common';
import { Ctx, KafkaContext, MessagePattern, Payload } from '@nestjs/microservices';
import { rpcTopic, type RpcRequest, type RpcService } from '@platform/contracts';
import { RpcDispatcher } from '@platform/kafka';
import { runWithLogContext } from './log-context';
import { log, logEnabled } from './logger';

/** Serves `<service>.rpc` (each request in its caller's log and trace context); requests whose caller already gave up are dropped unanswered. */
export function rpcControllerFor(service: RpcService): Type<unknown> {
  @Controller()
  class RpcController {
    constructor(@Inject(RpcDispatcher) private readonly dispatcher: RpcDispatcher) {}

    @MessagePattern(rpcTopic(service))
    async handle(@Payload() request: RpcRequest & { deadline?: number }, @Ctx() kafka: KafkaContext) {
      if (typeof request?.deadline === 'number' && request.deadline < Date.now()) {
        return { ok: false, error: { code: 'internal_error', message: 'The request expired before it was handled.' } };
      }
      const caller = request?.caller;
      // The request's log context (its request id is the correlation id of what it causes) and a span continuing the caller's trace.
      return runWithLogContext(
        { requestId: caller?.requestId, correlationId: caller?.requestId, appId: caller?.appId },
        async () => {
          const started = performance.now();
          const reply = await this.dispatcher.dispatch(request);
          if (logEnabled('debug')) log('debug', 'rpc handled', { op: request.op, ok: reply.ok, ms: Math.round((performance.now() - started) * 10) / 10 });
          return reply;
        },
        headerText(kafka.getMessage().headers?.traceparent),
      );
    }
  }
  return RpcController;
}

function headerText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return Buffer.isBuffer(value) ? value.toString('utf8') : null;
}
