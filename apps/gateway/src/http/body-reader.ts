import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError } from '#platform/errors';
import { checkJsonLimits } from './json-limits';

/** D27: JSON bodies up to 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Methods whose body the pipeline reads (and so may refuse as too large, not JSON or not parsable). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Default time a client has to send its whole body once the gateway starts reading it. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/**
 * Bytes of an oversized body read and dropped before the 413 is sent: a socket closed on unread
 * bytes is reset, and a reset can discard the answer before the client reads it.
 */
const MAX_DRAIN_BYTES = 8 * MAX_BODY_BYTES;

export interface BodyReadOptions {
  /** The body must arrive within this many milliseconds of the read starting (408 request_timeout). */
  timeoutMs?: number;
}

/**
 * architecture section 3, step 5: 413 over 1 MiB (checked on Content-Length first and while streaming),
 * 415 for a body that is not application/json, 400 invalid_json for one that does not parse, 400
 * invalid_request for one nested too deep or too wide, 408 for one that does not arrive in time.
 * A refusal that leaves bytes unread closes the connection after the answer.
 * Returns undefined when the request carries no body.
 */
export async function readJsonBody(req: IncomingMessage, res: ServerResponse, options: BodyReadOptions = {}): Promise<unknown> {
  if (!BODY_METHODS.has(req.method ?? '')) return undefined;
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_BODY_TIMEOUT_MS);
  const tooLarge = async () => {
    await drain(req, res, deadline);
    return new DomainError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  };
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) throw await tooLarge();
  const hasBody = (Number.isFinite(declared) && declared > 0) || req.headers['transfer-encoding'] !== undefined;
  const contentType = req.headers['content-type'];
  if ((contentType !== undefined && !isJsonContentType(contentType)) || (hasBody && contentType === undefined)) {
    req.resume();
    throw new DomainError('unsupported_media_type', 'The request body must be application/json.');
  }
  if (!hasBody) return undefined;
  const text = await readText(req, res, deadline);
  if (text === null) throw await tooLarge();
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid JSON.');
  }
  checkJsonLimits(body);
  return body;
}

/** The body as text, or null once it passes MAX_BODY_BYTES; 408 when it is not complete by the deadline. */
function readText(req: IncomingMessage, res: ServerResponse, deadline: number): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (settle: () => void) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError);
      settle();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) done(() => resolve(null));
      else chunks.push(chunk);
    };
    const onEnd = () => done(() => resolve(Buffer.concat(chunks).toString('utf8')));
    const onError = (error: Error) => done(() => reject(error));
    const timer = setTimeout(() => {
      res.setHeader('Connection', 'close');
      done(() => reject(new DomainError('request_timeout', 'The request body did not arrive in time.')));
    }, deadline - Date.now());
    req.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

/**
 * Reads and drops the rest of an oversized body, up to MAX_DRAIN_BYTES or the deadline, so the 413
 * is not lost to a reset; whatever is left unread closes the connection after the answer.
 */
function drain(req: IncomingMessage, res: ServerResponse, deadline: number): Promise<void> {
  if (req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('error', done);
      if (!req.complete) {
        res.setHeader('Connection', 'close');
        req.pause();
      }
      resolve();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
    req.on('data', onData).on('end', done).on('error', done);
    req.resume();
  });
}

export function isJsonContentType(value: string): boolean {
  const mediaType = value.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json';
}
