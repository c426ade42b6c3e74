import { DomainError } from './domain-error';

describe('DomainError over request/reply', () => {
  it('keeps a 429’s Retry-After on its way from a service back to the gateway', () => {
    const back = DomainError.fromRpcError(JSON.parse(JSON.stringify(DomainError.rateLimited('Busy; wait 2 seconds.', 2).toRpcError())));
    expect({ code: back.code, status: back.status, message: back.message, retryAfterSeconds: back.retryAfterSeconds }).toEqual({
      code: 'rate_limited',
      status: 429,
      message: 'Busy; wait 2 seconds.',
      retryAfterSeconds: 2,
    });
  });

  it('carries no Retry-After for other refusals, and a whole number of seconds, at least 1, for a 429', () => {
    expect(DomainError.fromRpcError(new DomainError('not_found').toRpcError()).retryAfterSeconds).toBeUndefined();
    expect(DomainError.fromRpcError({ code: 'rate_limited', retryAfterSeconds: 0.2 }).retryAfterSeconds).toBe(1);
    expect(DomainError.fromRpcError({ code: 'rate_limited', retryAfterSeconds: Number.NaN }).retryAfterSeconds).toBeUndefined();
  });
});
