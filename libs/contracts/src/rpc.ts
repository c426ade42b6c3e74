import type { ErrorCode, ErrorDetail } from './error-codes';

/** What the gateway knows about the caller, passed with every request/reply call. */
export interface RpcCaller {
  requestId: string;
  appId?: string;
  keyEnvironment?: 'sandbox' | 'live';
}

/**
 * A request on `<service>.rpc`: one topic per service, the operation named inside. The W3C trace
 * context of the caller's span travels as the Kafka message's `traceparent`/`tracestate` headers,
 * and the caller's app id as `RPC_APP_ID_HEADER`.
 */
export interface RpcRequest<P = unknown> {
  op: string;
  caller: RpcCaller;
  payload: P;
  /** Epoch ms after which the caller no longer waits; servers drop such requests unanswered. */
  deadline?: number;
}

/**
 * The Kafka header naming the app a request is made for (`caller.appId`), absent for internal calls:
 * servers share their slots between apps by it without parsing the request first (ADR 0206).
 */
export const RPC_APP_ID_HEADER = 'svc-app-id';

/** A domain error carried back to the gateway, which turns it into the error envelope. */
export interface RpcError {
  code: ErrorCode;
  message?: string;
  details?: ErrorDetail[];
  /** For a 429: the seconds the gateway puts in Retry-After. */
  retryAfterSeconds?: number;
}

export type RpcReply<R = unknown> = { ok: true; result: R } | { ok: false; error: RpcError };

/** An event a call caused, so the caller can wait until other services have applied it. */
export interface EventRef {
  eventId: string;
  type: string;
}

/** The references of events a call appended, for the caller to wait on. */
export function eventRefs(events: { eventId: string; type: string }[]): EventRef[] {
  return events.map((e) => ({ eventId: e.eventId, type: e.type }));
}
