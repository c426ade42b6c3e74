import { ERROR_CODES, type ErrorCode, type ErrorDetail, type ErrorEnvelope } from '#platform/contracts';

/** Builds the spec's `{error:{code,message,type,requestId,docUrl}}` body. */
export function errorEnvelope(args: { code: ErrorCode; message?: string; requestId: string; docsUrl: string; details?: ErrorDetail[] }): ErrorEnvelope {
  const spec = ERROR_CODES[args.code];
  return {
    error: {
      code: args.code,
      message: args.message ?? spec.message,
      type: spec.type,
      requestId: args.requestId,
      docUrl: `${args.docsUrl.replace(/\/+$/, '')}/errors#${args.code}`,
      ...(args.details && args.details.length > 0 ? { details: args.details } : {}),
    },
  };
}
