import type { RpcCaller, RpcOperationName, RpcReply, RpcReplyOf, RpcRequest, RpcRequestOf, RpcService } from '#platform/contracts';
import { isDomainError } from '#platform/errors';
import { openFields, sealFields, type RpcFieldSealer } from './rpc-sealing';

/** The handler of `op` on service `S`: typed by the operation map in libs/contracts (rpc-operations.ts). */
export type RpcHandler<S extends RpcService, O extends RpcOperationName<S>> = (payload: RpcRequestOf<S, O>, caller: RpcCaller) => Promise<RpcReplyOf<S, O>>;

/** Handlers of some of a service's operations, by operation name. */
export type RpcHandlers<S extends RpcService> = { [O in RpcOperationName<S>]?: RpcHandler<S, O> };

/** A handler as the dispatcher keeps it: it takes whatever arrived on the wire. */
type WireHandler = (payload: unknown, caller: RpcCaller) => Promise<unknown>;

/**
 * Routes requests of a service's rpc topic to handlers by `op`, turning refusals into typed replies.
 * `S` names the service, so `register` takes only its operations (and those every service answers),
 * each handler typed by the operation's request and reply.
 */
export class RpcDispatcher<S extends RpcService = RpcService> {
  private readonly handlers = new Map<string, WireHandler>();

  /** With a sealer, secret fields arrive sealed (a plaintext one is refused) and leave sealed (rpc-sealing.ts). */
  constructor(
    private readonly onError: (error: unknown, request: RpcRequest) => void = () => undefined,
    private readonly sealer: RpcFieldSealer | null = null,
  ) {}

  /** Routes `op` to `handler`; the op's name alone picks the operation (NoInfer: the handler's literals keep their types). */
  register<O extends RpcOperationName<S>>(op: O, handler: NoInfer<RpcHandler<S, O>>): this {
    if (this.handlers.has(op)) throw new Error(`RPC op ${op} registered twice`);
    // The one place where a payload from the network is taken for the operation's request: the
    // handler keeps its runtime checks for what a caller that breaks the contract could send.
    this.handlers.set(op, (payload, caller) => handler(payload as RpcRequestOf<S, O>, caller));
    return this;
  }

  /** Whether `op` has a handler (so an op name can be a metric label without letting callers add series). */
  handles(op: string): boolean {
    return this.handlers.has(op);
  }

  registerAll(handlers: RpcHandlers<S>): this {
    for (const op of Object.keys(handlers) as RpcOperationName<S>[]) {
      const handler = handlers[op];
      if (handler) this.register(op, handler);
    }
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
