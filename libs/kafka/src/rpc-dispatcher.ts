import type { RpcCaller, RpcReply, RpcRequest } from '@platform/contracts';
import { isDomainError } from '@platform/errors';
import { openFields, sealFields, type RpcFieldSealer } from './rpc-sealing';

export type RpcHandler = (payload: any, caller: RpcCaller) => Promise<unknown>;

/** Routes requests of a service's rpc topic to handlers by `op`, turning refusals into typed replies. */
export class RpcDispatcher {
  private readonly handlers = new Map<string, RpcHandler>();

  /** With a sealer, secret fields arrive sealed (a plaintext one is refused) and leave sealed (rpc-sealing.ts). */
  constructor(
    private readonly onError: (error: unknown, request: RpcRequest) => void = () => undefined,
    private readonly sealer: RpcFieldSealer | null = null,
  ) {}

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
      const payload = this.sealer ? openFields(request.payload, 'request', this.sealer) : request.payload;
      const result = (await handler(payload, request.caller ?? { requestId: 'unknown' })) ?? null;
      return { ok: true, result: this.sealer ? sealFields(result, 'reply', this.sealer) : result };
    } catch (error) {
      if (isDomainError(error)) return { ok: false, error: error.toRpcError() };
      // Without the payload: it may hold what a log must never carry (a token sent in plaintext).
      this.onError(error, { ...request, payload: undefined });
      return { ok: false, error: { code: 'internal_error', message: 'The service failed; retry with the same Idempotency-Key.' } };
    }
  }
}
