import type { FetchInit, FetchLike, FetchResponseLike } from './request-sender';

/** One request the fake fetch received. */
export interface RecordedCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** A scripted answer: JSON (or text) with a status, or a thrown network error. */
export type FakeReply = { status: number; json?: unknown; text?: string; headers?: Record<string, string> } | { networkError: unknown } | { hang: true };

/**
 * A fetch that answers from a script, in order, and records what it was asked: the unit tests'
 * stand-in for the network. A reply may be a function of the call (to route by URL).
 */
export function fakeFetch(script: Array<FakeReply | ((call: RecordedCall) => FakeReply)>): { fetch: FetchLike; calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const fetch: FetchLike = async (url: string, init: FetchInit) => {
    const call: RecordedCall = { url, method: init.method, headers: { ...init.headers }, body: init.body };
    calls.push(call);
    const next = script.shift();
    if (!next) throw new Error(`fakeFetch: no reply scripted for call ${calls.length} (${init.method} ${url})`);
    const reply = typeof next === 'function' ? next(call) : next;
    if ('networkError' in reply) throw reply.networkError;
    if ('hang' in reply) {
      return new Promise<FetchResponseLike>((_resolve, reject) =>
        init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
      );
    }
    const headers = new Map(Object.entries(reply.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
    if (reply.json !== undefined) headers.set('content-type', 'application/json');
    const text = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
    return {
      status: reply.status,
      headers: {
        get: (name: string) => headers.get(name.toLowerCase()) ?? null,
        forEach: (cb: (value: string, name: string) => void) => headers.forEach((value, name) => cb(value, name)),
      },
      text: async () => text,
    };
  };
  return { fetch, calls };
}

/** What undici's fetch throws when a connection fails with `code`. */
export function fetchFailed(code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ${code}`), { code }) });
}

/** The API's error envelope. */
export function errorReply(status: number, code: string, extra: { type?: string; headers?: Record<string, string>; details?: unknown[] } = {}): FakeReply {
  const requestId = `req_${code.slice(0, 8).padEnd(24, '0')}`;
  return {
    status,
    headers: { 'svc-request-id': requestId, ...extra.headers },
    json: {
      error: {
        code,
        message: `${code} happened`,
        type: extra.type ?? 'invalid_request_error',
        requestId,
        docUrl: `https://docs.example.test/errors#${code}`,
        ...(extra.details ? { details: extra.details } : {}),
      },
    },
  };
}
