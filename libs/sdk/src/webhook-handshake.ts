import { createHash, timingSafeEqual } from 'node:crypto';

/** The handshake's query: URLSearchParams, a URL, a parsed query object (Express `req.query`), or a URL / query string (`req.url`). */
export type HandshakeQuery = URLSearchParams | URL | string | Record<string, string | string[] | undefined | unknown>;

/** What to answer the handshake GET: write `status` and `body` (as text/plain). */
export type HandshakeAnswer = { ok: true; status: 200; body: string } | { ok: false; status: 403; body: '' };

/**
 * Answers the endpoint handshake (`GET <url>?svc.mode=subscribe&svc.verify_token=...&svc.challenge=...`):
 * 200 with the challenge as the body when the mode is subscribe and the token equals `verifyToken`
 * (compared in constant time), else 403 with an empty body.
 *
 * ```ts
 * const answer = answerHandshake(req.url, process.env.VERIFY_TOKEN!);
 * res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body);
 * ```
 */
export function answerHandshake(query: HandshakeQuery, verifyToken: string): HandshakeAnswer {
  const params = toParams(query);
  const mode = params('svc.mode');
  const token = params('svc.verify_token');
  const challenge = params('svc.challenge');
  if (mode === 'subscribe' && token !== null && challenge !== null && verifyToken && sameSecret(token, verifyToken))
    return { ok: true, status: 200, body: challenge };
  return { ok: false, status: 403, body: '' };
}

/** Hashing both sides first gives equal lengths, so neither the content nor the length leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** A lookup of one parameter; a repeated parameter counts as absent, so it cannot smuggle a second token. */
function toParams(query: HandshakeQuery): (name: string) => string | null {
  let search: URLSearchParams;
  if (query instanceof URLSearchParams) search = query;
  else if (query instanceof URL) search = query.searchParams;
  else if (typeof query === 'string') {
    const q = query.indexOf('?');
    search = new URLSearchParams(q >= 0 ? query.slice(q + 1) : query);
  } else {
    const object = query as Record<string, unknown>;
    return (name) => {
      const value = object?.[name];
      if (typeof value === 'string') return value;
      return Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' ? value[0] : null;
    };
  }
  return (name) => {
    const values = search.getAll(name);
    return values.length === 1 ? values[0] : null;
  };
}
