import type { IncomingMessage } from 'node:http';
import { DomainError } from '@platform/errors';

/** D27: JSON bodies up to 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** Methods whose body the pipeline reads (and so may refuse as too large, not JSON or not parsable). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * DESIGN section 3, step 5: 413 over 1 MiB (checked on Content-Length first and while streaming),
 * 415 for a body that is not application/json, 400 invalid_json for one that does not parse.
 * Returns undefined when the request carries no body.
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!BODY_METHODS.has(req.method ?? '')) return undefined;
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) {
    req.resume();
    throw new DomainError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
  }
  const hasBody = (Number.isFinite(declared) && declared > 0) || req.headers['transfer-encoding'] !== undefined;
  const contentType = req.headers['content-type'];
  if (contentType !== undefined && !isJsonContentType(contentType)) {
    req.resume();
    throw new DomainError('unsupported_media_type', 'The request body must be application/json.');
  }
  if (!hasBody) return undefined;
  if (contentType === undefined) {
    req.resume();
    throw new DomainError('unsupported_media_type', 'The request body must be application/json.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) {
      req.resume();
      throw new DomainError('payload_too_large', `The request body is larger than ${MAX_BODY_BYTES} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The request body is not valid JSON.');
  }
}

export function isJsonContentType(value: string): boolean {
  const mediaType = value.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json';
}
