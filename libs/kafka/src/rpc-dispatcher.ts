import type { RpcCaller, RpcReply, RpcRequest } from '@platform/contracts';
import { isDomainError } from '@platform/errors';

export type RpcHandler = (payload: any, caller: RpcCaller) => Promise<unknown>;

/** Routes requests of a service's rpc topic to handlers by `op`, turning refusals into typed replies. */
export class RpcDispatcher {
  private readonly handlers = new Map<string, RpcHandler>();

  constructor(private readonly onError: (error: unknown, request: RpcRequest) => void = () => undefined) {}

  register(op: string, handler: RpcHandler): this {
    if (this.handlers.has(op)) throw new Error(`RPC op ${op} registered twice`);
    this.handlers.set(op, handler);
    return this;
  }

  /** Whether `op` has a handler (so an op name can be a metric label without letting callers add series). */
  handles(op: string): boolean {
    return this.handlers.has(op);
  }

  registerAll(handlers: Record<string, RpcHandler>): this {
    for (const [op, handler] of Object.entries(handlers)) this.register(op, handler);
    return this;
  }

  async dispatch(request: RpcRequest): Promise<RpcReply> {
    const handler = request && typeof request.op === 'string' ? this.handlers.get(request.op) : undefined;
    if (!handler) {
      return { ok: false, error: { code: 'internal_error', message: `Unknown operation ${String(request?.op)}` } };
    }
    try {
      return { ok: true, result: (await handler(request.payload, request.caller ?? { requestId: 'unknown' })) ?? null };
    } catch (error) {
      if (isDomainError(error)) return { ok: false, error: error.toRpcError() };
      this.onError(error, request);
      return { ok: false, error: { code: 'internal_error', message: 'The service failed; retry with the same Idempotency-Key.' } };
    }
  }
}
