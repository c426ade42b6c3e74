import { ERROR_CODES, type ErrorCode, type ErrorDetail, type RpcError } from '#platform/contracts';

/**
 * A refusal with one of the spec's error codes. Thrown by deciders and handlers; the gateway turns it
 * into the error envelope, services carry it back over request/reply as an RpcError.
 */
export class DomainError extends Error {
  readonly status: number;
  /** For a 429: the seconds the gateway puts in Retry-After. */
  retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'DomainError';
    this.status = ERROR_CODES[code].status;
  }

  static invalid(details: ErrorDetail[], message = 'The request is invalid.'): DomainError {
    return new DomainError('invalid_request', message, details);
  }

  /** 429 rate_limited, answered with Retry-After. */
  static rateLimited(message: string, retryAfterSeconds: number): DomainError {
    const error = new DomainError('rate_limited', message);
    error.retryAfterSeconds = retryAfterSeconds;
    return error;
  }

  toRpcError(): RpcError {
    return {
      code: this.code,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...(this.retryAfterSeconds !== undefined ? { retryAfterSeconds: this.retryAfterSeconds } : {}),
    };
  }

  static fromRpcError(error: RpcError): DomainError {
    const domain = new DomainError(error.code, error.message, error.details);
    // A service's 429 keeps its Retry-After on the way back (a whole number of seconds, at least 1).
    if (typeof error.retryAfterSeconds === 'number' && Number.isFinite(error.retryAfterSeconds)) {
      domain.retryAfterSeconds = Math.max(1, Math.ceil(error.retryAfterSeconds));
    }
    return domain;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
