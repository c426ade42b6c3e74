import { createHash } from 'node:crypto';
import { DomainError } from '#platform/errors';

/** Spec, Limits: at most 255 printable ASCII characters. */
export function checkIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined) throw new DomainError('idempotency_key_required');
  const key = Array.isArray(header) ? header.join(',') : header;
  if (key.length === 0) throw new DomainError('idempotency_key_required');
  if (key.length > 255 || !/^[\x20-\x7e]+$/.test(key)) {
    throw DomainError.invalid([{ field: 'Idempotency-Key', issue: 'must be 1-255 printable ASCII characters' }]);
  }
  return key;
}

/** JSON with object keys sorted at every level, so the same body always hashes the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/** What "the same body" means for a replay: the same JSON value, whatever its key order or spacing. */
export function bodyHash(body: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(body ?? null))
    .digest('hex');
}
