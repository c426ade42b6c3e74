import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { rpcTopic, type RpcRequest, type RpcService } from '@platform/contracts';
import { RpcDispatcher } from '@platform/kafka';

/** Serves `<service>.rpc`; requests whose caller already gave up are dropped unanswered. */
export function rpcControllerFor(service: RpcService): Type<unknown> {
  @Controller()
  class RpcController {
    constructor(@Inject(RpcDispatcher) private readonly dispatcher: RpcDispatcher) {}

    @MessagePattern(rpcTopic(service))
    async handle(@Payload() request: RpcRequest & { deadline?: number }) {
      if (typeof request?.deadline === 'number' && request.deadline < Date.now()) {
        return { ok: false, error: { code: 'internal_error', message: 'The request expired before it was handled.' } };
      }
      return this.dispatcher.dispatch(request);
    }
  }
  return RpcController;
}
